package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.PathFileSystemAdapter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/** The suite on a filesystem written against the path API ({@link PathMemFs} through the adapter). */
abstract class PathMemFsScenarios extends PosixScenarios {
    static FuseMount pathMemFs(TransportKind transport) {
        FuseMount m = FuseMount.of(() -> new PathFileSystemAdapter(new PathMemFs()))
                .options(MountOptions.defaults().withAllowOther(true).withTransport(transport))
                .timeout(Duration.ofMinutes(3))
                .freshDirectories(false);
        return transport == TransportKind.URING
                ? m.beforeMount(() -> Files.writeString(MemFsScenarios.ENABLE_URING, "1")) : m;
    }

    abstract FuseMount fuseMount();

    @Override
    protected Path root() {
        return fuseMount().root();
    }

    /** Everything but what PathMemFs does not implement: fallocate, SEEK_HOLE/SEEK_DATA, O_TMPFILE. */
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.FALLOCATE, Feature.SEEK_HOLE, Feature.TMPFILE));
    }
}
