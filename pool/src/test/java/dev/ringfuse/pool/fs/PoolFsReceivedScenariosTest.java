package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.Feature;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.MountedFsKit;
import dev.ringfuse.testkit.PosixScenarios;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The POSIX suite, over io_uring, on a dataset received into another pool from a full stream and then an
 * incremental one (the clone test covers /dev/fuse). The origin is filled through a mount (every kind of
 * entry, a hard link, holes, xattrs, owners, times), its snapshot @a sent whole, then changed (blocks
 * overwritten, a name removed, a directory moved, a file added, a mode and a size changed, a hard link
 * dropped) and @b sent as an incremental stream. What the suite exercises here that a fresh dataset does
 * not: the inode numbering, directories and space counters the receiver rebuilt from the streams, under
 * files the suite's own operations sit beside. {@link #theReceivedTreeIsTheSentSnapshot} checks the tree
 * the streams carried, so the suite is known to run on received data.
 */
class PoolFsReceivedScenariosTest extends PosixScenarios {
    /** The origin's seed/ directory as snapshots @a and @b hold it (read through the origin's snapshot views). */
    private static TreeImage sentA, sentB;

    static SnapshotDirFs newFs() {
        try {
            Path dir = Files.createTempDirectory("poolrecv");
            Pool src = Pool.create("rsrc", List.<BlockDevice>of(UringBlockDevice.open(image(dir, "src.img"))));
            Pool dst = Pool.create("rdst", List.<BlockDevice>of(UringBlockDevice.open(image(dir, "dst.img"))));
            src.createDataset("rsrc/origin", Map.of("compression", "lz4"));
            seed(src);
            receive(dst, send(src, "rsrc/origin@a", null));
            receive(dst, send(src, "rsrc/origin@b", "@a"));
            for (Pool p : List.of(src, dst)) {
                PoolVerifier.Report r = PoolVerifier.verify(p, null);
                if (!r.clean()) throw new IllegalStateException(p.name() + " does not verify: " + r.errors());
            }
            src.close();
            return new SnapshotDirFs(new PoolFs(dst.dataset("rdst/recv"), true), null);
        } catch (Exception e) {
            throw new IllegalStateException("setting up the received dataset", e);
        }
    }

    private static Path image(Path dir, String name) throws IOException {
        Path img = dir.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(1L << 30);
        }
        img.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        return img;
    }

    private static byte[] send(Pool p, String snap, String from) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Sender.send(p, snap, from, out, x -> { });
        return out.toByteArray();
    }

    private static void receive(Pool p, byte[] stream) throws IOException {
        Receiver.receive(p, "rdst/recv", new ByteArrayInputStream(stream), false, x -> { }, x -> { });
    }

    /** Fills the origin through a mount, takes @a, changes it, takes @b; reads both back through .snapshots. */
    private static void seed(Pool src) throws Exception {
        Path mp = MountedFsKit.newMountpoint("recvorigin");
        SnapshotDirFs fs = new SnapshotDirFs(new PoolFs(src.dataset("rsrc/origin"), false), null);
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(180), mp, () -> {
                Path seed = Files.createDirectory(mp.resolve("seed"));
                SendReceiveMountTest.populate(seed);
                syncfs(seed); // the kernel's dirty pages reach the dataset before the snapshot's commit
                Snapshots.create(src, "rsrc/origin@a");
                change(seed);
                syncfs(seed);
                Snapshots.create(src, "rsrc/origin@b");
                sentA = TreeImage.of(mp.resolve(".snapshots/a/seed"));
                sentB = TreeImage.of(mp.resolve(".snapshots/b/seed"));
                return null;
            });
        } finally {
            if (!MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20))) throw new IllegalStateException("origin unmount was forced");
            Files.deleteIfExists(mp);
        }
    }

    private static void syncfs(Path p) throws Exception {
        Process pr = new ProcessBuilder("sync", "-f", p.toString()).inheritIO().start();
        if (!pr.waitFor(60, TimeUnit.SECONDS) || pr.exitValue() != 0) throw new IOException("sync -f " + p + " failed");
    }

    /** What @b changes against @a: every kind of record an incremental stream carries. */
    private static void change(Path seed) throws IOException {
        byte[] mid = new byte[1 << 20];
        new Random(12).nextBytes(mid);
        try (FileChannel c = FileChannel.open(seed.resolve("big"), StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(mid), 3L << 20);
        }
        Files.delete(seed.resolve("empty"));
        Files.delete(seed.resolve("sub/hard2"));
        Files.move(seed.resolve("sub/deeper"), seed.resolve("moved"));
        Files.writeString(seed.resolve("added"), "born after @a\n");
        Files.getFileAttributeView(seed.resolve("added"), UserDefinedFileAttributeView.class)
                .write("user.note", StandardCharsets.UTF_8.encode("b"));
        Files.setPosixFilePermissions(seed.resolve("small"), PosixFilePermissions.fromString("rw-rw-rw-"));
        try (RandomAccessFile f = new RandomAccessFile(seed.resolve("sparse").toFile(), "rw")) {
            f.setLength(9L << 20);
        }
    }

    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(PoolFsReceivedScenariosTest::newFs)
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.URING))
            .beforeMount(() -> Files.writeString(PoolFsScenarios.ENABLE_URING, "1"))
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

    @Test
    void theReceivedTreeIsTheSentSnapshot() throws Exception {
        assertSame(sentB, TreeImage.of(root().resolve("seed")), "live");
        assertSame(sentB, TreeImage.of(root().resolve(".snapshots/b/seed")), "@b");
        assertSame(sentA, TreeImage.of(root().resolve(".snapshots/a/seed")), "@a");
        assertEquals(List.of(List.of("hard", "sub/hard2")), sentA.linkGroups());
        assertTrue(sentB.entries().containsKey("added") && !sentB.entries().containsKey("empty"), sentB.entries().keySet().toString());
    }

    private static void assertSame(TreeImage sent, TreeImage got, String what) {
        assertEquals(sent.entries().keySet(), got.entries().keySet(), what + ": names");
        for (String k : sent.entries().keySet()) assertEquals(sent.entries().get(k), got.entries().get(k), what + ": " + k);
        assertEquals(sent.linkGroups(), got.linkGroups(), what + ": hard links");
    }
}
