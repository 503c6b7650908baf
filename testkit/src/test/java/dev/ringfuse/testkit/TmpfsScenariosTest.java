package dev.ringfuse.testkit;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The reference run: the suite on kernel tmpfs, which defines the expected behaviour. Needs root (mount).
 */
class TmpfsScenariosTest extends PosixScenarios {
    private static Path mnt;

    @BeforeAll
    static void mountTmpfs() throws Exception {
        mnt = MountedFsKit.newMountpoint("tmpfs");
        Procs.Result r = Procs.run("mount", "-t", "tmpfs", "-o", "size=512m,mode=0755", "ringfuse-tmpfs", mnt.toString());
        if (r.exit() != 0) throw new AssertionError("mount -t tmpfs failed (run as root): " + r.err());
    }

    @AfterAll
    static void unmountTmpfs() throws Exception {
        // detach: MappedByteBuffers of the mmap scenario stay mapped until garbage collection
        Libc.umount(mnt.toString(), true);
        java.nio.file.Files.delete(mnt);
    }

    @Override
    protected Path root() {
        return mnt;
    }
}
