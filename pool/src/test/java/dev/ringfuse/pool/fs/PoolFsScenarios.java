package dev.ringfuse.pool.fs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.testkit.Feature;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.PosixScenarios;
import dev.ringfuse.TransportKind;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The POSIX suite on a pool dataset (lz4) on a sparse image file through io_uring + O_DIRECT. */
abstract class PoolFsScenarios extends PosixScenarios {
    static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");

    static PoolFs newFs() {
        return newFs(false);
    }

    /** With {@code writeback} the dataset asks for the kernel's writeback cache. */
    static PoolFs newFs(boolean writeback) {
        try {
            Path dir = Files.createTempDirectory("poolfs");
            Path img = dir.resolve("pool.img");
            try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
                f.setLength(1L << 30);
            }
            img.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            Pool pool = Pool.create("scen", List.<BlockDevice>of(UringBlockDevice.open(img)));
            return new PoolFs(pool.createDataset("scen/fs", Map.of("compression", "lz4")), true, 5, writeback);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static FuseMount mount(TransportKind transport) {
        return mount(transport, false);
    }

    static FuseMount mount(TransportKind transport, boolean writeback) {
        FuseMount m = FuseMount.of(() -> newFs(writeback))
                .options(MountOptions.defaults().withAllowOther(true).withTransport(transport))
                .timeout(Duration.ofMinutes(4))
                .freshDirectories(false);
        return transport == TransportKind.URING ? m.beforeMount(() -> Files.writeString(ENABLE_URING, "1")) : m;
    }

    abstract FuseMount fuseMount();

    @Override
    protected Path root() {
        return fuseMount().root();
    }

    /** All but PREALLOCATE: a copy-on-write pool cannot reserve blocks ahead, as ZFS (DESIGN.md, "fallocate"). */
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.PREALLOCATE));
    }
}
