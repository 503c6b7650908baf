package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.Errno;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.PathFileSystemAdapter;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.testkit.internal.Libc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The suite on a filesystem written against the path API ({@link PathMemFs} through the adapter). */
abstract class PathMemFsScenarios extends PosixScenarios {
    static FuseMount pathMemFs(TransportKind transport) {
        return suiteMount(() -> new PathFileSystemAdapter(new PathMemFs()), transport);
    }

    /** A mount for the suite: allow_other (steps run as other users), 3 min, io_uring enabled when asked for. */
    static FuseMount suiteMount(Supplier<? extends LowLevelFileSystem> fs, TransportKind transport) {
        return suiteMount(fs, transport, true);
    }

    static FuseMount suiteMount(Supplier<? extends LowLevelFileSystem> fs, TransportKind transport, boolean defaultPermissions) {
        FuseMount m = FuseMount.of(fs)
                .options(MountOptions.defaults().withAllowOther(true).withDefaultPermissions(defaultPermissions)
                        .withTransport(transport))
                .timeout(Duration.ofMinutes(3))
                .freshDirectories(false); // PosixScenarios makes its own
        return transport == TransportKind.URING
                ? m.beforeMount(() -> Files.writeString(MemFsScenarios.ENABLE_URING, "1")) : m;
    }

    abstract FuseMount fuseMount();

    @Override
    protected Path root() {
        return fuseMount().root();
    }

    /** O_TMPFILE, unclaimed, is refused with a clear errno and leaves nothing behind. */
    @Test
    void tmpfileIsRefusedCleanly() throws Exception {
        assertErrno(Errno.EOPNOTSUPP, () -> Libc.open(s(dir()), Libc.O_TMPFILE | Libc.O_RDWR, 0600));
        assertEquals(List.of(), Libc.listDir(s(dir()), 4096));
    }

    /** Everything but O_TMPFILE, which the path API cannot express (core/DESIGN.md, "Path API"). */
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.TMPFILE));
    }
}
