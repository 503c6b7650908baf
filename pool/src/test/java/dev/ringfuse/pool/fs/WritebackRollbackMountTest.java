package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rollback of a dataset mounted with the kernel's writeback cache (pool/DESIGN.md, "Writeback cache"): refused,
 * changing nothing, while a file is open (the kernel would keep its size and write its dirty pages into the
 * rolled-back state); once closed, names, pages and sizes are the snapshot's. The same for an incremental
 * receive -F into the mounted dataset.
 */
@Timeout(300)
class WritebackRollbackMountTest {
    @TempDir
    Path tmp;

    @Test
    void rollbackUnderTheWritebackCache() throws Exception {
        Path img = tmp.resolve("w.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Pool pool = Pool.create("w", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("w/fs", Map.of("compression", "off"));
        Path mp = MountedFsKit.newMountpoint("pool-wb-rollback");
        PoolFs fs = new PoolFs(pool.dataset("w/fs"), false, 5, true);
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(200), mp, () -> {
                Files.writeString(mp.resolve("closed"), "old");
                Files.writeString(mp.resolve("open"), "old");
                Snapshots.create(pool, "w/fs@s");
                Files.writeString(mp.resolve("closed"), "new and longer");
                assertEquals("new and longer", Files.readString(mp.resolve("closed"))); // cached pages, to be dropped
                try (FileChannel c = FileChannel.open(mp.resolve("open"), StandardOpenOption.WRITE)) {
                    c.write(ByteBuffer.wrap("new and longer".getBytes(StandardCharsets.US_ASCII)), 0);
                    // the page of "open" is dirty in the kernel, and the kernel would keep its length of 14
                    IOException e = assertThrows(IOException.class, () -> Snapshots.rollback(pool, "w/fs@s"));
                    assertTrue(e.getMessage().contains("1 file is open"), e.getMessage());
                    assertEquals("new and longer", Files.readString(mp.resolve("closed")), "a refused rollback changes nothing");
                }
                // closed: its pages were written back at the close; the kernel sends RELEASE after close(2) returns
                for (long end = System.nanoTime() + 10_000_000_000L; ; Thread.sleep(50)) {
                    try {
                        Snapshots.rollback(pool, "w/fs@s");
                        break;
                    } catch (IOException e) {
                        if (System.nanoTime() > end) throw e;
                    }
                }
                assertEquals("old", Files.readString(mp.resolve("closed")), "no stale page or size after the rollback");
                assertEquals("old", Files.readString(mp.resolve("open")), "no stale page or size after the rollback");
                assertEquals(3, Files.size(mp.resolve("open")));
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
            pool.export(false);
        }
    }

    @Test
    void receiveUnderTheWritebackCache() throws Exception {
        Path img = tmp.resolve("r.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Pool pool = Pool.create("r", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("r/src", Map.of("compression", "off"));
        Path src = MountedFsKit.newMountpoint("pool-wb-src");
        PoolFsMountTest.mounted(pool, "r/src", src, () -> {
            Files.writeString(src.resolve("f"), "aaaaaaaaaaaaaa");
            Snapshots.create(pool, "r/src@a");
            Files.writeString(src.resolve("f"), "bbb");
            Snapshots.create(pool, "r/src@b");
            return null;
        });
        java.io.ByteArrayOutputStream full = new java.io.ByteArrayOutputStream(), incr = new java.io.ByteArrayOutputStream();
        dev.ringfuse.pool.send.Sender.send(pool, "r/src@a", null, full, x -> { });
        dev.ringfuse.pool.send.Sender.send(pool, "r/src@b", "r/src@a", incr, x -> { });
        dev.ringfuse.pool.send.Receiver.receive(pool, "r/copy", new java.io.ByteArrayInputStream(full.toByteArray()), false, x -> { }, x -> { });
        Path mp = MountedFsKit.newMountpoint("pool-wb-receive");
        PoolFs fs = new PoolFs(pool.dataset("r/copy"), false, 5, true);
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(200), mp, () -> {
                try (FileChannel c = FileChannel.open(mp.resolve("f"), StandardOpenOption.WRITE)) {
                    c.write(ByteBuffer.wrap("zz".getBytes(StandardCharsets.US_ASCII)), 0);
                    IOException e = assertThrows(IOException.class, () -> dev.ringfuse.pool.send.Receiver.receive(pool, "r/copy",
                            new java.io.ByteArrayInputStream(incr.toByteArray()), true, x -> { }, x -> { }));
                    assertTrue(e.getMessage().contains("1 file is open"), e.getMessage());
                }
                assertEquals("zzaaaaaaaaaaaa", Files.readString(mp.resolve("f")), "a refused receive changes nothing");
                for (long end = System.nanoTime() + 10_000_000_000L; ; Thread.sleep(50)) { // RELEASE follows close(2)
                    try {
                        dev.ringfuse.pool.send.Receiver.receive(pool, "r/copy", new java.io.ByteArrayInputStream(incr.toByteArray()),
                                true, x -> { }, x -> { });
                        break;
                    } catch (IOException e) {
                        if (System.nanoTime() > end) throw e;
                    }
                }
                assertEquals("bbb", Files.readString(mp.resolve("f")), "the received bytes and size, no stale page");
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
            pool.export(false);
        }
    }
}
