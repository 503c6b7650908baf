package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshot views on a real mount are released: when the kernel forgets their nodes (drop_caches), when their
 * snapshot is destroyed (its name answers ENOENT, an open handle fails, the slot goes once the kernel lets go)
 * and after idle (the view is dropped and rebuilt on demand; the kernel is asked to forget its name).
 */
@Timeout(300)
class SnapshotViewsMountTest {
    @TempDir
    Path tmp;

    private interface Scenario {
        void run(Pool pool, SnapshotDirFs fs, Path mp) throws Exception;
    }

    private void mounted(long idleNanos, Scenario s) throws Exception {
        Path img = tmp.resolve("v.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Pool pool = Pool.create("v", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("v/fs", Map.of());
        Path mp = MountedFsKit.newMountpoint("snapviews");
        SnapshotDirFs fs = new SnapshotDirFs(new PoolFs(pool.dataset("v/fs"), false), null, idleNanos);
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(240), mp, () -> {
                s.run(pool, fs, mp);
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
        }
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        assertTrue(r.clean(), r.errors().toString());
        pool.close();
    }

    private static void snapshots(Pool pool, Path mp, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            Files.writeString(mp.resolve("f"), "version " + i);
            Files.createDirectories(mp.resolve("d" + i));
            Snapshots.create(pool, "v/fs@s" + i);
        }
    }

    private static void dropCaches() throws IOException {
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "2");
    }

    private static void await(String what, IntSupplier value, int expected) throws InterruptedException {
        long end = System.nanoTime() + 30_000_000_000L;
        while (value.getAsInt() != expected && System.nanoTime() < end) Thread.sleep(50);
        assertEquals(expected, value.getAsInt(), what);
    }

    @Test
    void viewsGoWhenTheKernelForgetsThemOrTheirSnapshotIsDestroyed() throws Exception {
        mounted(3600_000_000_000L, (pool, fs, mp) -> {
            int n = 40;
            snapshots(pool, mp, n);
            for (int i = 0; i < n; i++) {
                Path v = mp.resolve(".snapshots/s" + i);
                assertEquals("version " + i, Files.readString(v.resolve("f")));
                try (Stream<Path> l = Files.list(v)) {
                    assertEquals(i + 2, l.count(), "f and d0..d" + i);
                }
            }
            assertEquals(n, fs.viewSlots());
            assertEquals(n, fs.viewsLoaded());
            dropCaches();
            await("views left after the kernel forgot every node", fs::viewSlots, 0);
            assertEquals(0, fs.viewsLoaded());

            // destroyed while looked up, one with a file open: ENOENT for the name, an error for the handle
            for (int i = 1; i < 6; i++) assertEquals("version " + i, Files.readString(mp.resolve(".snapshots/s" + i + "/f")));
            try (FileChannel open = FileChannel.open(mp.resolve(".snapshots/s0/f"))) { // opened, not read: no page cached
                for (int i = 0; i < 6; i++) Snapshots.destroy(pool, "v/fs@s" + i);
                Thread.sleep(1100); // entry and attribute timeouts: the kernel asks again
                IOException stale = assertThrows(IOException.class, () -> open.read(ByteBuffer.allocate(64), 0));
                System.out.println("read of an open file of a destroyed snapshot: " + stale);
                for (int i = 0; i < 6; i++) assertFalse(Files.exists(mp.resolve(".snapshots/s" + i)), "s" + i);
                assertTrue(fs.viewSlots() >= 1, "the open file still holds its view's slot");
                assertEquals(0, fs.viewsLoaded(), "no view of a destroyed snapshot stays loaded");
            }
            await("views left after their snapshots were destroyed", fs::viewSlots, 0);

            // the rest are looked up and destroyed without any cache drop: the slots go all the same
            for (int i = 6; i < n; i++) assertEquals("version " + i, Files.readString(mp.resolve(".snapshots/s" + i + "/f")));
            assertEquals(n - 6, fs.viewSlots());
            for (int i = 6; i < n; i++) Snapshots.destroy(pool, "v/fs@s" + i);
            await("views left after destroying the rest", fs::viewSlots, 0);
            assertEquals(0, fs.viewsLoaded());
            try (Stream<Path> l = Files.list(mp.resolve(".snapshots"))) {
                assertEquals(0, l.count());
            }
        });
    }

    /**
     * `ls .snapshots` while snapshots are destroyed and taken between its getdents calls: the listing goes on
     * where it was (each entry's cookie is its snapshot's id, not its place in the list), so every snapshot
     * that existed throughout is listed, once.
     */
    @Test
    void snapshotListingGoesOnWhereItWasWhileSnapshotsComeAndGo() throws Exception {
        mounted(3600_000_000_000L, (pool, fs, mp) -> {
            int n = 300;
            for (int i = 0; i < n; i++) Snapshots.create(pool, String.format("v/fs@s%03d", i));
            List<String> seen = new java.util.ArrayList<>();
            try (java.nio.file.DirectoryStream<Path> d = Files.newDirectoryStream(mp.resolve(".snapshots"))) {
                java.util.Iterator<Path> it = d.iterator();
                for (int i = 0; i < 10; i++) seen.add(it.next().getFileName().toString()); // the first getdents' batch
                for (int i = 0; i < 50; i++) Snapshots.destroy(pool, String.format("v/fs@s%03d", i));
                for (int i = 0; i < 10; i++) Snapshots.create(pool, "v/fs@new" + i);
                it.forEachRemaining(p -> seen.add(p.getFileName().toString()));
            }
            assertEquals(seen.size(), new java.util.HashSet<>(seen).size(), "listed twice: " + seen);
            for (int i = 50; i < n; i++) assertTrue(seen.contains(String.format("s%03d", i)), "s" + i + " missing from " + seen);
            assertEquals(String.format("s%03d", 0), seen.getFirst(), "creation order");
        });
    }

    @Test
    void idleViewsAreDroppedAndRebuiltOnDemand() throws Exception {
        mounted(1_000_000_000L, (pool, fs, mp) -> {
            snapshots(pool, mp, 5);
            for (int i = 0; i < 5; i++) assertEquals("version " + i, Files.readString(mp.resolve(".snapshots/s" + i + "/f")));
            try (FileChannel open = FileChannel.open(mp.resolve(".snapshots/s2/f"))) {
                await("views loaded after idle", fs::viewsLoaded, 0);
                await("slots after idle: the open file's only", fs::viewSlots, 1);
                ByteBuffer b = ByteBuffer.allocate(64);
                open.read(b, 0);
                assertEquals("version 2", new String(b.array(), 0, b.position(), StandardCharsets.UTF_8), "the view comes back");
                assertEquals("version 4", Files.readString(mp.resolve(".snapshots/s4/f")));
            }
            await("slots once idle again", fs::viewSlots, 0);
            assertEquals(0, fs.viewsLoaded());
        });
    }
}
