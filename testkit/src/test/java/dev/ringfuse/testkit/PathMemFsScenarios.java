package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.PathFileSystemAdapter;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;

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

    /** Everything but what PathMemFs does not implement: fallocate, SEEK_HOLE/SEEK_DATA, O_TMPFILE, POSIX ACLs. */
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.FALLOCATE, Feature.SEEK_HOLE, Feature.TMPFILE, Feature.POSIX_ACL));
    }
}
