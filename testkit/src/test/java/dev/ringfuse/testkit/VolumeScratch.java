package dev.ringfuse.testkit;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The scratch space of a volume test, as a JUnit extension: before each test (skipped unless root with the
 * tools it needs) a work directory — on tmpfs when there is one: the tests are about the FUSE path, not the
 * disk — for the image, and a FUSE mount point; after each test, even a failed one, a forced unmount and
 * the deletion of the work directory.
 */
final class VolumeScratch implements BeforeEachCallback, AfterEachCallback {
    private final String label;
    private final String[] tools;
    Path work;
    Path image;
    Path mountpoint;

    VolumeScratch(String label, String... tools) {
        this.label = label;
        this.tools = tools;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        assumeTrue(Libc.geteuid() == 0, "needs root (mount, losetup)");
        for (String tool : tools) assumeTrue(Procs.onPath(tool), tool);
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        work = Files.createTempDirectory(parent, label);
        image = work.resolve("disk.img");
        mountpoint = MountedFsKit.newMountpoint(label);
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        if (work == null) return;
        MountedFsKit.forceUnmount(mountpoint);
        try (Stream<Path> s = Files.walk(work)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        work = null;
    }
}
