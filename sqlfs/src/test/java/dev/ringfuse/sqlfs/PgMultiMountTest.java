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
 * kernels may cache names and attributes for a minute, and locks that hold across the mounts.
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
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
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

    private static String run(String script, Path file) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", script, file.toString()).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertEquals(0, p.exitValue(), () -> out + stderr(p));
        return out;
    }

    private static String stderr(Process p) {
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
