package dev.ringfuse.sqlfs;

import dev.ringfuse.sqlfs.testserver.PgServer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two mounts of one PostgreSQL database, each served by its own JVM, as two hosts would: one tree,
 * close-to-open consistency, changes (by the other mount or by SQL) seen within one second although both
 * kernels may cache names and attributes for a minute, locks that hold across the mounts (with EDEADLK for a
 * cycle), and a file unlinked on one mount that stays usable through a descriptor open on the other.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PgMultiMountTest {
    static PgServer pg;
    static String url;
    static ServerJvm a, b;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.start();
        url = pg.newDatabase();
        a = ServerJvm.start(url, "pg-a", 60);
        b = ServerJvm.start(url, "pg-b", 60);
    }

    @AfterAll
    static void stop() {
        if (a != null) a.close();
        if (b != null) b.close();
        if (pg != null) pg.close();
    }

    private static Path fresh(String name) throws IOException {
        String n = name + "-" + System.nanoTime();
        Files.createDirectory(a.mountpoint.resolve(n));
        return Path.of(n);
    }

    /** Waits up to one second for {@code cond}; returns whether it became true. */
    private static boolean withinOneSecond(BooleanSupplier cond) throws InterruptedException {
        return within(1, cond);
    }

    private static boolean within(int seconds, BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            if (cond.getAsBoolean()) return true;
            Thread.sleep(10);
        }
        return cond.getAsBoolean();
    }

    @Test
    void aFileClosedOnOneMountIsReadInFullByAnOpenOnTheOther() throws Exception {
        Path rel = fresh("cto").resolve("big.bin");
        byte[] v1 = new byte[5 << 20], v2 = new byte[5 << 20];
        new Random(1).nextBytes(v1);
        new Random(2).nextBytes(v2);
        Files.write(a.mountpoint.resolve(rel), v1);
        assertArrayEquals(v1, Files.readAllBytes(b.mountpoint.resolve(rel)));
        Files.write(a.mountpoint.resolve(rel), v2); // b has v1 in its page cache
        assertArrayEquals(v2, Files.readAllBytes(b.mountpoint.resolve(rel)));
    }

    /**
     * Close-to-open without the change feed (a third mount, {@code ringfuse.sqlfs.feed.off}), so that nothing but the
     * open itself can make it hold: a file that grew is read whole, and a name renamed over on one mount opens as the
     * new file on the other. The rename failed (ENOENT until the entry timed out: the name this kernel cached led to
     * the gone inode) before the open answered ESTALE for a node with no name that the mount does not hold open.
     */
    @Test
    void withoutNotificationsAnOpenSeesAFileThatGrewOrWasRenamedOverOnTheOtherMount() throws Exception {
        try (ServerJvm quiet = ServerJvm.start(url, "pg-quiet", 60, "-Dringfuse.sqlfs.feed.off=true")) {
            Path dir = fresh("quiet");
            Path rel = dir.resolve("grows.txt");
            byte[] small = "232 bytes, or so".getBytes(), big = new byte[5032];
            new Random(3).nextBytes(big);
            Files.write(a.mountpoint.resolve(rel), small);
            assertArrayEquals(small, Files.readAllBytes(quiet.mountpoint.resolve(rel)), "cached: name, size and pages");
            Files.write(a.mountpoint.resolve(rel), big);
            assertArrayEquals(big, Files.readAllBytes(quiet.mountpoint.resolve(rel)), "the whole of what grew");

            Path dst = dir.resolve("dst"), src = dir.resolve("src");
            Files.writeString(a.mountpoint.resolve(dst), "old");
            assertEquals("old", Files.readString(quiet.mountpoint.resolve(dst)), "cached: dst names the old inode");
            Files.writeString(a.mountpoint.resolve(src), "new");
            Files.move(a.mountpoint.resolve(src), a.mountpoint.resolve(dst), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            assertEquals("new", Files.readString(quiet.mountpoint.resolve(dst)), "dst after the rename over it");
            assertEquals(3L, Files.size(quiet.mountpoint.resolve(dst)));
        }
    }

    @Test
    void aNameCreatedOnOneMountAppearsOnTheOtherWithinOneSecond() throws Exception {
        Path rel = fresh("names").resolve("new");
        assertFalse(Files.exists(b.mountpoint.resolve(rel))); // b's kernel caches "no such name" for 60 s
        Files.writeString(a.mountpoint.resolve(rel), "hello");
        assertTrue(withinOneSecond(() -> Files.exists(b.mountpoint.resolve(rel))));
        assertEquals("hello", Files.readString(b.mountpoint.resolve(rel)));
        Files.delete(b.mountpoint.resolve(rel));
        assertTrue(withinOneSecond(() -> !Files.exists(a.mountpoint.resolve(rel))));
    }

    @Test
    void anAttributeChangedOnOneMountIsSeenOnTheOtherWithinOneSecond() throws Exception {
        Path rel = fresh("attrs").resolve("f");
        Files.writeString(a.mountpoint.resolve(rel), "x");
        Path onB = b.mountpoint.resolve(rel);
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(onB))); // cached 60 s
        Files.setPosixFilePermissions(a.mountpoint.resolve(rel), PosixFilePermissions.fromString("rw-------"));
        assertTrue(withinOneSecond(() -> perms(onB).equals("rw-------")));
        Files.writeString(a.mountpoint.resolve(rel), "longer contents");
        assertTrue(withinOneSecond(() -> size(onB) == 15));
    }

    @Test
    void aFileAddedWithSqlAppearsOnBothMountsWithinOneSecond() throws Exception {
        Path dir = fresh("sql");
        Path onA = a.mountpoint.resolve(dir).resolve("from-sql"), onB = b.mountpoint.resolve(dir).resolve("from-sql");
        assertFalse(Files.exists(onA));
        assertFalse(Files.exists(onB));
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            ContractSql.add(c, ContractSql.resolve(c, dir.toString()), "from-sql", "by SQL".getBytes(), 0644, 0, 0);
            c.commit();
        }
        assertTrue(withinOneSecond(() -> Files.exists(onA) && Files.exists(onB)));
        assertEquals("by SQL", Files.readString(onA));
        assertEquals("by SQL", Files.readString(onB));
    }

    @Test
    void recordLocksAndFlockHoldAcrossMounts() throws Exception {
        Path rel = fresh("locks").resolve("f");
        Files.writeString(a.mountpoint.resolve(rel), "locked");
        String holder = """
                import fcntl, os, sys
                fd = os.open(sys.argv[1], os.O_RDWR)
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 0)
                fcntl.flock(os.open(sys.argv[1], os.O_RDONLY), fcntl.LOCK_EX | fcntl.LOCK_NB)
                print("LOCKED", flush=True)
                sys.stdin.read()
                """;
        String probe = """
                import fcntl, os, sys, struct
                fd = os.open(sys.argv[1], os.O_RDWR)
                def attempt(f):
                    try:
                        f(); return "free"
                    except BlockingIOError:
                        return "busy"
                print(attempt(lambda: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 5, 2)),
                      attempt(lambda: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 5, 20)),
                      attempt(lambda: fcntl.flock(os.open(sys.argv[1], os.O_RDONLY), fcntl.LOCK_SH | fcntl.LOCK_NB)))
                """;
        Process h = new ProcessBuilder("python3", "-c", holder, a.mountpoint.resolve(rel).toString()).start();
        try {
            String line = new String(h.getInputStream().readNBytes(7));
            assertEquals("LOCKED\n", line, () -> "holder failed: " + stderr(h));
            // on the other mount: bytes 2..6 overlap the held 0..9; bytes 20..24 do not; the flock is exclusive
            assertEquals("busy free busy", run(probe, b.mountpoint.resolve(rel)));
        } finally {
            h.getOutputStream().close(); // the holder exits, its locks go with its descriptors
            h.waitFor(20, TimeUnit.SECONDS);
            h.destroyForcibly();
        }
        assertEquals("free free free", run(probe, b.mountpoint.resolve(rel)));
    }

    @Test
    void aLockCycleAcrossMountsIsAnsweredWithEdeadlk() throws Exception {
        Path rel = fresh("deadlock").resolve("f");
        Files.writeString(a.mountpoint.resolve(rel), "0123456789");
        // holds byte FIRST, then (after a line on stdin) waits for byte SECOND; prints what that wait gave
        String locker = """
                import errno, fcntl, os, sys
                fd = os.open(sys.argv[1], os.O_RDWR)
                fcntl.lockf(fd, fcntl.LOCK_EX, 1, int(sys.argv[2]))
                print("LOCKED", flush=True)
                sys.stdin.readline()
                try:
                    fcntl.lockf(fd, fcntl.LOCK_EX, 1, int(sys.argv[3]))
                    print("GOT", flush=True)
                except OSError as e:
                    # by number: errno.errorcode names 35 EDEADLOCK, Linux's alias of EDEADLK
                    print("EDEADLK" if e.errno == errno.EDEADLK else errno.errorcode.get(e.errno, str(e.errno)), flush=True)
                sys.stdin.read()
                """;
        Process p1 = new ProcessBuilder("python3", "-c", locker, a.mountpoint.resolve(rel).toString(), "0", "1").start();
        Process p2 = new ProcessBuilder("python3", "-c", locker, b.mountpoint.resolve(rel).toString(), "1", "0").start();
        try {
            var out1 = new java.io.BufferedReader(new java.io.InputStreamReader(p1.getInputStream()));
            var out2 = new java.io.BufferedReader(new java.io.InputStreamReader(p2.getInputStream()));
            assertEquals("LOCKED", out1.readLine(), () -> stderr(p1));
            assertEquals("LOCKED", out2.readLine(), () -> stderr(p2));
            p1.getOutputStream().write('\n');
            p1.getOutputStream().flush(); // p1 (mount A) now waits for byte 1, held by p2 (mount B)
            Thread.sleep(500);
            p2.getOutputStream().write('\n');
            p2.getOutputStream().flush(); // p2 would wait for byte 0, held by p1: a cycle
            assertEquals("EDEADLK", out2.readLine(), () -> stderr(p2));
            p2.getOutputStream().close(); // p2 exits, its lock on byte 1 goes: p1 gets it
            assertTrue(p2.waitFor(20, TimeUnit.SECONDS));
            assertEquals("GOT", out1.readLine(), () -> stderr(p1));
        } finally {
            for (Process p : new Process[] {p1, p2}) {
                p.getOutputStream().close();
                if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly();
            }
        }
        try (Connection c = DriverManager.getConnection(url)) {
            assertEquals(0, count(c, "SELECT count(*) FROM lock_waits"), "no wait is left behind");
        }
    }

    @Test
    void aFileUnlinkedOnOneMountStaysUsableThroughADescriptorOnTheOtherUntilClosed() throws Exception {
        Path rel = fresh("unlinked").resolve("f");
        Files.writeString(a.mountpoint.resolve(rel), "before");
        long ino = ((Number) Files.getAttribute(b.mountpoint.resolve(rel), "unix:ino")).longValue();
        String rows = "SELECT count(*) FROM inodes WHERE ino = " + ino;
        try (Connection c = DriverManager.getConnection(url)) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(b.mountpoint.resolve(rel),
                    java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                Files.delete(a.mountpoint.resolve(rel));
                assertTrue(withinOneSecond(() -> !Files.exists(b.mountpoint.resolve(rel))));
                assertEquals("before", read(ch));
                ch.write(java.nio.ByteBuffer.wrap("after!".getBytes()), 0);
                assertEquals("after!", read(ch));
                assertEquals(1, count(c, rows), "kept while open on mount B");
            }
            // RELEASE reaches B's server after close returns, and A's kernel forgets the node it unlinked soon after
            assertTrue(within(5, () -> count(c, rows) == 0), "deleted when B closed it");
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFileKeptOpenByACrashedMountIsRemovedByTheNextMount() throws Exception {
        Path rel = fresh("crashed").resolve("f");
        Files.writeString(a.mountpoint.resolve(rel), "x");
        long ino = ((Number) Files.getAttribute(a.mountpoint.resolve(rel), "unix:ino")).longValue();
        String rows = "SELECT count(*) FROM inodes WHERE ino = " + ino;
        try (Connection c = DriverManager.getConnection(url); ServerJvm crashing = ServerJvm.start(url, "pg-crash", 60)) {
            java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(crashing.mountpoint.resolve(rel));
            Files.delete(a.mountpoint.resolve(rel));
            crashing.kill9(); // its open file stays recorded: no RELEASE, no unmount
            try {
                ch.close();
            } catch (IOException ignored) {
                // the mount is gone
            }
            assertEquals(1, count(c, rows), "still recorded as open by the dead mount");
            try (ServerJvm next = ServerJvm.start(url, "pg-next", 60)) {
                assertTrue(within(5, () -> count(c, rows) == 0), "the next mount removed what the dead one held");
            }
        }
    }

    private static String read(java.nio.channels.FileChannel ch) throws IOException {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64);
        ch.read(buf, 0);
        return new String(buf.array(), 0, buf.position());
    }

    private static long count(Connection c, String sql) {
        try (var s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String run(String script, Path file) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", script, file.toString()).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertEquals(0, p.exitValue(), () -> out + stderr(p));
        return out;
    }

    private static String stderr(Process p) {
        if (p.isAlive()) return "(still running)"; // its stderr ends only when it exits: reading it would hang
        try {
            return new String(p.getErrorStream().readAllBytes());
        } catch (IOException e) {
            return "";
        }
    }

    private static String perms(Path p) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        } catch (IOException e) {
            return "";
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }
}
