package dev.ringfuse.pool.fs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.Feature;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.PosixScenarios;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The POSIX suite on a clone of a snapshot whose origin was itself received from a send stream, served
 * through {@link SnapshotDirFs} (so the .snapshots wrapper passes every request of the suite through).
 */
class PoolFsCloneScenariosTest extends PosixScenarios {
    static SnapshotDirFs newFs() {
        try {
            Path dir = Files.createTempDirectory("poolclone");
            Path img = dir.resolve("pool.img");
            try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
                f.setLength(1L << 30);
            }
            img.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            Pool pool = Pool.create("clsc", List.<BlockDevice>of(UringBlockDevice.open(img)));
            new PoolFs(pool.createDataset("clsc/origin", Map.of("compression", "lz4")), false); // writes the root inode
            Snapshots.create(pool, "clsc/origin@sent");
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            Sender.send(pool, "clsc/origin@sent", null, stream, x -> { });
            Receiver.receive(pool, "clsc/received", new ByteArrayInputStream(stream.toByteArray()), false, x -> { }, x -> { });
            Snapshots.clone(pool, "clsc/received@sent", "clsc/clone", Map.of());
            return new SnapshotDirFs(new PoolFs(pool.dataset("clsc/clone"), true), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(PoolFsCloneScenariosTest::newFs)
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV))
            .timeout(Duration.ofMinutes(4))
            .freshDirectories(false);

    @Override
    protected Path root() {
        return MOUNT.root();
    }

    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.PREALLOCATE));
    }
}
