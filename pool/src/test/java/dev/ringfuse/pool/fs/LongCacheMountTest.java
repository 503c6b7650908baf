package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the kernel keeping names and attributes for an hour (the default), what changes a mounted dataset without
 * a request the kernel sees shows through the mount at once: a rollback, an incremental receive, and the commit
 * that settles st_blocks. Each test first shows that the kernel does cache (a change made behind its back stays
 * unseen), so the assertions after are the invalidation's doing, not a timeout's.
 */
@Timeout(300)
class LongCacheMountTest {
    @TempDir
    Path tmp;

    private Pool newPool(String name) throws Exception {
        Path img = tmp.resolve(name + ".img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        return Pool.create(name, List.<BlockDevice>of(UringBlockDevice.open(img)));
    }

    private static <T> T mounted(PoolFs fs, Path mp, Callable<T> work) throws Exception {
        return PoolFsMountTest.mounted(fs, mp, work);
    }

    /** The state before: what the snapshot holds. */
    private static void before(Path mp) throws Exception {
        Files.writeString(mp.resolve("keep"), "old");
        Files.setPosixFilePermissions(mp.resolve("keep"), PosixFilePermissions.fromString("rw-r--r--"));
        Files.writeString(mp.resolve("goes"), "comes back");
        Files.createDirectory(mp.resolve("d"));
        Files.writeString(mp.resolve("d/x"), "x");
    }

    /** The changes after the snapshot, each of a kind the kernel caches: size, mode, nlink, names, a directory's nlink. */
    private static void after(Path mp) throws Exception {
        Files.writeString(mp.resolve("keep"), "new and longer");
        Files.setPosixFilePermissions(mp.resolve("keep"), PosixFilePermissions.fromString("rw-------"));
        Files.createLink(mp.resolve("keep2"), mp.resolve("keep"));
        Files.delete(mp.resolve("goes"));
        Files.writeString(mp.resolve("new"), "new");
        Files.createDirectory(mp.resolve("d/sub"));
        Files.move(mp.resolve("d/x"), mp.resolve("d/y"));
    }

    /** Stats, lists and reads everything, and looks up the names of the other state, so the kernel caches it all. */
    private static void warm(Path mp) throws Exception {
        for (String n : List.of("keep", "keep2", "goes", "new", "d", "d/x", "d/y", "d/sub")) {
            if (Files.exists(mp.resolve(n)) && Files.isRegularFile(mp.resolve(n))) Files.readString(mp.resolve(n));
            if (Files.exists(mp.resolve(n))) Files.getAttribute(mp.resolve(n), "unix:nlink");
        }
        list(mp, ".");
        list(mp, "d");
    }

    private static List<String> list(Path mp, String dir) throws Exception {
        try (Stream<Path> s = Files.list(mp.resolve(dir))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static int mode(Path p) throws Exception {
        return (int) Files.getAttribute(p, "unix:mode") & 07777;
    }

    private static long blocks(Path p) throws Exception {
        Process pr = new ProcessBuilder("stat", "-c", "%b", p.toString()).redirectErrorStream(true).start();
        String out = new String(pr.getInputStream().readAllBytes()).trim();
        assertEquals(0, pr.waitFor(), out);
        return Long.parseLong(out);
    }

    private static int nlink(Path p) throws Exception {
        return (int) Files.getAttribute(p, "unix:nlink");
    }

    /** The state of {@link #before}, seen through the mount. */
    private static void assertBefore(Path mp, String when) throws Exception {
        assertEquals(List.of("d", "goes", "keep"), list(mp, "."), "names " + when);
        assertEquals(List.of("x"), list(mp, "d"), "names in d " + when);
        assertEquals("old", Files.readString(mp.resolve("keep")), "bytes " + when);
        assertEquals(3, Files.size(mp.resolve("keep")), "size " + when);
        assertEquals(0644, mode(mp.resolve("keep")), "mode " + when);
        assertEquals(1, nlink(mp.resolve("keep")), "nlink " + when);
        assertEquals(2, nlink(mp.resolve("d")), "a directory's nlink " + when);
        assertEquals("comes back", Files.readString(mp.resolve("goes")), "a name back " + when);
        assertFalse(Files.exists(mp.resolve("keep2")), "no stale name " + when);
        assertFalse(Files.exists(mp.resolve("new")), "no stale name " + when);
        assertFalse(Files.exists(mp.resolve("d/y")), "no stale name " + when);
        assertTrue(Files.exists(mp.resolve("d/x")), "no stale negative entry " + when);
    }

    /** Changes {@code name}'s mode in the tree behind the kernel's back; the mount must still show the old one. */
    private static void showKernelCaches(PoolFs fs, Path mp, String name) throws Exception {
        long ino = (long) Files.getAttribute(mp.resolve(name), "unix:ino");
        int cached = mode(mp.resolve(name));
        fs.locked(() -> {
            Inode n = fs.inodes.require(ino);
            n.mode ^= 0004;
            fs.inodes.put(n);
        });
        assertEquals(cached, mode(mp.resolve(name)), "the kernel serves attributes from its cache (no GETATTR)");
        fs.locked(() -> {
            Inode n = fs.inodes.require(ino);
            n.mode ^= 0004;
            fs.inodes.put(n);
        });
    }

    @Test
    void rollbackShowsAtOnce() throws Exception {
        Pool pool = newPool("lr");
        pool.createDataset("lr/fs", Map.of("compression", "off"));
        Path mp = MountedFsKit.newMountpoint("pool-long-rollback");
        PoolFs fs = new PoolFs(pool.dataset("lr/fs"), false, 5, false, CacheTimeouts.DEFAULT);
        try {
            mounted(fs, mp, () -> {
                before(mp);
                Snapshots.create(pool, "lr/fs@s");
                after(mp);
                warm(mp);
                showKernelCaches(fs, mp, "new");
                assertEquals(2, nlink(mp.resolve("keep")));
                try (FileChannel held = FileChannel.open(mp.resolve("keep"), StandardOpenOption.READ)) {
                    assertEquals(14, held.size());
                    Snapshots.rollback(pool, "lr/fs@s");
                    assertEquals(3, held.size(), "fstat of a file held open across the rollback");
                }
                assertBefore(mp, "after the rollback");
                return null;
            });
        } finally {
            pool.export(false);
        }
    }

    @Test
    void incrementalReceiveShowsAtOnce() throws Exception {
        Pool pool = newPool("li");
        pool.createDataset("li/src", Map.of("compression", "off"));
        Path src = MountedFsKit.newMountpoint("pool-long-src");
        mounted(new PoolFs(pool.dataset("li/src"), false), src, () -> {
            before(src);
            after(src); // the copy starts in the changed state
            return null;
        });
        mounted(new PoolFs(pool.dataset("li/src"), false), src, () -> {
            // taken now, not before the unmount: a file unlinked while the kernel still knew it is an orphan until
            // its FORGET, and a snapshot holding one would make the copy change at its first mount (orphans are
            // freed then), which an incremental receive without -F refuses
            Snapshots.create(pool, "li/src@a");
            // back to the state before, by requests: the stream carries it
            Files.delete(src.resolve("keep2"));
            Files.delete(src.resolve("new"));
            Files.delete(src.resolve("d/sub"));
            Files.move(src.resolve("d/y"), src.resolve("d/x"));
            Files.writeString(src.resolve("keep"), "old");
            Files.writeString(src.resolve("goes"), "comes back");
            Files.setPosixFilePermissions(src.resolve("keep"), PosixFilePermissions.fromString("rw-r--r--"));
            Snapshots.create(pool, "li/src@b");
            return null;
        });
        ByteArrayOutputStream full = new ByteArrayOutputStream(), incr = new ByteArrayOutputStream();
        Sender.send(pool, "li/src@a", null, full, x -> { });
        Sender.send(pool, "li/src@b", "li/src@a", incr, x -> { });
        Receiver.receive(pool, "li/copy", new ByteArrayInputStream(full.toByteArray()), false, x -> { }, x -> { });
        Path mp = MountedFsKit.newMountpoint("pool-long-receive");
        PoolFs fs = new PoolFs(pool.dataset("li/copy"), false, 5, false, CacheTimeouts.DEFAULT);
        try {
            mounted(fs, mp, () -> {
                warm(mp); // (no change behind the kernel's back here: the receive wants the copy unchanged)
                assertEquals(List.of("d", "keep", "keep2", "new"), list(mp, "."));
                try (FileChannel held = FileChannel.open(mp.resolve("keep"), StandardOpenOption.READ)) {
                    assertEquals(14, held.size());
                    Receiver.receive(pool, "li/copy", new ByteArrayInputStream(incr.toByteArray()), false, x -> { }, x -> { });
                    assertEquals(3, held.size(), "fstat of a file held open across the receive");
                }
                assertBefore(mp, "after the receive");
                return null;
            });
        } finally {
            pool.export(false);
        }
    }

    /**
     * A file whose dirty buffer (the next power of two: 128 KiB) is larger than its committed block (rounded
     * to the 4 KiB sector: 68 KiB), so that st_blocks changes at the commit.
     */
    private static final int SMALL = 65_537;

    @Test
    void commitSettlesStBlocks() throws Exception {
        Pool pool = newPool("lb");
        pool.createDataset("lb/fs", Map.of("compression", "off"));
        Path mp = MountedFsKit.newMountpoint("pool-long-blocks");
        PoolFs fs = new PoolFs(pool.dataset("lb/fs"), false, 0, false, CacheTimeouts.DEFAULT);
        try {
            mounted(fs, mp, () -> {
                Path f = mp.resolve("small");
                Files.writeString(f, "x".repeat(SMALL));
                long ino = (long) Files.getAttribute(f, "unix:ino");
                long dirty = blocks(f); // counts the dirty record buffer
                try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    c.force(true); // commits
                }
                long[] server = new long[1];
                fs.locked(() -> server[0] = fs.attr(fs.inodes.require(ino)).blocks());
                assertTrue(server[0] < dirty, "a file of " + SMALL + " bytes takes less once written: " + server[0] + " vs " + dirty);
                assertEquals(server[0], blocks(f), "st_blocks after fsync is the committed one");
                // a commit no request asked for (the control socket's, the timer's): the timer thread invalidates
                Path g = mp.resolve("other");
                Files.writeString(g, "y".repeat(SMALL));
                long dirtyG = blocks(g);
                pool.commit();
                long[] serverG = new long[1];
                long gino = (long) Files.getAttribute(g, "unix:ino");
                fs.locked(() -> serverG[0] = fs.attr(fs.inodes.require(gino)).blocks());
                assertTrue(serverG[0] < dirtyG, serverG[0] + " vs " + dirtyG);
                long seen = dirtyG;
                for (long end = System.nanoTime() + 10_000_000_000L; seen != serverG[0] && System.nanoTime() < end; Thread.sleep(20)) {
                    seen = blocks(g);
                }
                assertEquals(serverG[0], seen, "st_blocks after a commit from outside the requests");
                return null;
            });
        } finally {
            pool.export(false);
        }
    }
}
