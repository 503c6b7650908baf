package dev.ringfuse.sqlfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.sqlfs.testserver.PgServer;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The writers' gate against sessions that are not the mount's writers, on a real PostgreSQL server and a real
 * mount: an application reading the tables in an open transaction, a pg_dump in progress (it locks every
 * table, the gate too, for the whole dump). The mount's writers must go on within a bounded time and lose
 * nothing, also those forced to run alone ({@link Database#aloneAfter} = 0: every write transaction asks
 * for the gate exclusively, the path that only repeated serialization failures take otherwise).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PgWritersGateTest {
    /** The gate's lock_timeout (Database.GATE_ALONE). */
    private static final long GATE_TIMEOUT_MS = 2_000;

    static PgServer pg;
    static String url;
    static Path mnt;
    static Mount mount;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.start();
        url = pg.newDatabase();
        mnt = MountedFsKit.newMountpoint("pg-gate");
        mount = MountedFsKit.withTimeout(Duration.ofSeconds(60), mnt,
                () -> Fuse.mount(mnt, SqlFs.open(SqlFsOptions.of(url)), MountOptions.defaults().withTransport(TransportKind.DEV)));
    }

    @AfterAll
    static void stop() {
        Database.aloneAfter = 3;
        try {
            if (mount != null) MountedFsKit.closeOrForce(mount, mnt, Duration.ofSeconds(30));
        } finally {
            if (pg != null) pg.close(); // after the unmount: the mount's last writes need the server
        }
    }

    @AfterEach
    void ordinaryGate() {
        Database.aloneAfter = 3;
    }

    @Test
    void anApplicationReadingEveryTableInAnOpenTransactionHoldsUpNoWriter() throws Exception {
        Path dir = Files.createDirectory(mnt.resolve("reader"));
        try (Connection app = DriverManager.getConnection(url)) {
            app.setAutoCommit(false);
            List<String> tables = applicationTables(app);
            assertTrue(tables.contains("fs_meta") && tables.contains("chunks") && !tables.contains("fs_gate"), tables::toString);
            try (Statement s = app.createStatement()) {
                for (String t : tables) s.executeQuery("SELECT * FROM " + t + " LIMIT 1").close();
            }
            assertTrue(locksHeld(app).containsAll(tables), "the application holds ACCESS SHARE on every table it read");

            Database.aloneAfter = 0;
            Map<Path, byte[]> written = new ConcurrentHashMap<>();
            AtomicLong slowest = new AtomicLong();
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int id = w;
                writers.add(CompletableFuture.runAsync(() -> {
                    Random r = new Random(id);
                    for (int i = 0; i < 6; i++) {
                        byte[] data = new byte[1 + r.nextInt(200_000)];
                        r.nextBytes(data);
                        Path f = dir.resolve("w" + id + "-" + i);
                        long t0 = System.nanoTime();
                        try {
                            Files.write(f, data);
                        } catch (IOException e) {
                            throw new RuntimeException(f + ": " + e, e);
                        }
                        slowest.accumulateAndGet(System.nanoTime() - t0, Math::max);
                        written.put(f, data);
                    }
                }, r -> Thread.ofPlatform().daemon().start(r)));
            }
            for (CompletableFuture<Void> f : writers) f.get(90, TimeUnit.SECONDS);
            // nothing but the writers held the gate: running alone meant waiting for the writers in flight only
            // (the bound leaves room for a loaded machine; with the gate on fs_meta each call hung for 60 s)
            assertTrue(slowest.get() < TimeUnit.MILLISECONDS.toNanos(GATE_TIMEOUT_MS + 3_000),
                    "slowest file: " + slowest.get() / 1_000_000 + " ms");
            Database.aloneAfter = 3;

            assertEquals(24, written.size());
            for (var e : written.entrySet()) assertArrayEquals(e.getValue(), Files.readAllBytes(e.getKey()), e.getKey().toString());
            assertTrue(locksHeld(app).containsAll(tables), "the application's transaction was open throughout");
            app.rollback();
        }
        assertNoGateLeftOnTheMountsConnections();
    }

    @Test
    void aDumpInProgressDelaysAWriterThatRunsAloneByTheLockTimeoutOnly() throws Exception {
        Path dir = Files.createDirectory(mnt.resolve("dump"));
        // enough data that the dump, whose output nobody reads yet, stops in the middle holding its locks
        byte[] big = new byte[16 << 20];
        new Random(7).nextBytes(big);
        Files.write(dir.resolve("big"), big);

        String db = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
        ProcessBuilder pb = new ProcessBuilder(pg.tool("pg_dump").toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(pg.port()), "-U", PgServer.USER, db).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PGPASSWORD", PgServer.PASSWORD);
        Process dump = pb.start();
        try (Connection watch = DriverManager.getConnection(url)) {
            watch.setAutoCommit(true);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!dumpHoldsTheGate(watch)) {
                assertTrue(dump.isAlive(), "pg_dump ended before it was seen holding fs_gate");
                assertTrue(System.nanoTime() < until, "pg_dump never held fs_gate");
                Thread.sleep(50);
            }

            // ordinary writers take the gate shared, which the dump's ACCESS SHARE does not block
            Map<Path, byte[]> written = new ConcurrentHashMap<>();
            long slowest = 0;
            for (int i = 0; i < 5; i++) slowest = Math.max(slowest, writeTimed(dir.resolve("plain" + i), i, written)[0]);
            assertTrue(slowest < TimeUnit.MILLISECONDS.toNanos(GATE_TIMEOUT_MS),
                    "an ordinary write call took " + slowest / 1_000_000 + " ms beside the dump");

            // writers that run alone wait for the dump at most the lock timeout per transaction, then go on
            // with the shared gate
            Database.aloneAfter = 0;
            slowest = 0;
            long longest = 0;
            for (int i = 0; i < 3; i++) {
                long[] t = writeTimed(dir.resolve("alone" + i), 100 + i, written);
                slowest = Math.max(slowest, t[0]);
                longest = Math.max(longest, t[1]);
            }
            Database.aloneAfter = 3;
            assertTrue(longest >= TimeUnit.MILLISECONDS.toNanos(GATE_TIMEOUT_MS - 100),
                    "no write call waited for the gate: the exclusive path was not taken (" + longest / 1_000_000 + " ms)");
            // a call's own try, and at most one other's exclusive request queued ahead of its shared retry (the
            // previous file's RELEASE runs beside the next CREATE)
            assertTrue(slowest < TimeUnit.MILLISECONDS.toNanos(2 * GATE_TIMEOUT_MS + 1_000),
                    "a write call that runs alone took " + slowest / 1_000_000 + " ms beside the dump");
            assertTrue(dump.isAlive() && dumpHoldsTheGate(watch), "the dump held the gate throughout");

            long dumped = drain(dump.getInputStream());
            assertTrue(dump.waitFor(60, TimeUnit.SECONDS), "pg_dump finished");
            assertEquals(0, dump.exitValue(), "pg_dump succeeded");
            assertTrue(dumped > big.length, "the dump holds the data: " + dumped + " bytes");

            assertArrayEquals(big, Files.readAllBytes(dir.resolve("big")));
            for (var e : written.entrySet()) assertArrayEquals(e.getValue(), Files.readAllBytes(e.getKey()), e.getKey().toString());
        } finally {
            dump.destroyForcibly();
            dump.waitFor(30, TimeUnit.SECONDS);
        }
        assertNoGateLeftOnTheMountsConnections();
    }

    /**
     * The exclusive gate's SET and LOCK take no snapshot: a row that the gate's holder commits while the writer
     * waits is seen by the writer's work, and the work runs with the session's own lock_timeout.
     */
    @Test
    void theWriterThatRunsAloneTakesItsSnapshotAfterTheWait() throws Exception {
        String other = pg.newDatabase();
        try (Database db = new Database(other, 2, 65536, 4242); Connection holder = DriverManager.getConnection(other)) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("LOCK TABLE fs_gate IN ACCESS SHARE MODE");
                s.executeUpdate("INSERT INTO fs_meta VALUES ('probe', 'committed while the writer waited')");
            }
            Database.aloneAfter = 0;
            long t0 = System.nanoTime();
            CompletableFuture<String[]> seen = CompletableFuture.supplyAsync(() -> db.write(c -> {
                try (Statement s = c.createStatement()) {
                    String probe = null;
                    try (ResultSet rs = s.executeQuery("SELECT value FROM fs_meta WHERE key = 'probe'")) {
                        if (rs.next()) probe = rs.getString(1);
                    }
                    try (ResultSet rs = s.executeQuery("SHOW lock_timeout")) {
                        rs.next();
                        return new String[] {probe, rs.getString(1)};
                    }
                }
            }), r -> Thread.ofPlatform().daemon().start(r));
            try (Connection watch = DriverManager.getConnection(other); Statement w = watch.createStatement()) {
                for (boolean waiting = false; !waiting; ) {
                    assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(GATE_TIMEOUT_MS / 2),
                            "the writer was not seen waiting for the gate");
                    try (ResultSet rs = w.executeQuery("SELECT count(*) FROM pg_locks WHERE relation = 'fs_gate'::regclass"
                            + " AND mode = 'AccessExclusiveLock' AND NOT granted")) {
                        rs.next();
                        waiting = rs.getInt(1) > 0;
                    }
                }
            }
            holder.commit();
            String[] r = seen.get(30, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("committed while the writer waited", r[0], "the work's snapshot follows the wait");
            assertEquals("0", r[1], "lock_timeout is the session's again once the gate is held");
            assertTrue(ms < GATE_TIMEOUT_MS, "the writer waited for the holder only, not its lock timeout: " + ms + " ms");
        }
    }

    /** A database of schema version 3 (whose gate was fs_meta) gets the gate table when mounted. */
    @Test
    void aVersion3DatabaseIsMigratedToTheGateTable() throws Exception {
        String old = pg.newDatabase();
        new Database(old, 1, 65536, 1).close();
        try (Connection c = DriverManager.getConnection(old); Statement s = c.createStatement()) {
            s.execute("DROP TABLE fs_gate");
            s.execute("UPDATE schema_version SET version = 3");
        }
        try (Database db = new Database(old, 1, 65536, 2)) {
            assertEquals("ok", db.write(c -> "ok"));
        }
        try (Connection c = DriverManager.getConnection(old); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT version FROM schema_version")) {
                rs.next();
                assertEquals(Schema.VERSION, rs.getInt(1));
            }
            try (ResultSet rs = s.executeQuery("SELECT to_regclass('fs_gate'), obj_description('fs_gate'::regclass)")) {
                rs.next();
                assertNotNull(rs.getString(1));
                assertTrue(rs.getString(2).startsWith("ringfuse internal"), rs.getString(2));
            }
        }
    }

    /** Writes {@code f} with one call each to create, write and close; returns {the slowest call, all three}. */
    private static long[] writeTimed(Path f, int seed, Map<Path, byte[]> written) throws IOException {
        byte[] data = new byte[60_000];
        new Random(seed).nextBytes(data);
        long t0 = System.nanoTime();
        FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        long t1, t2;
        try {
            t1 = System.nanoTime();
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) ch.write(b);
            t2 = System.nanoTime();
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        ch.close();
        long t3 = System.nanoTime();
        written.put(f, data);
        return new long[] {Math.max(t1 - t0, Math.max(t2 - t1, t3 - t2)), t3 - t0};
    }

    private static List<String> applicationTables(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
                     + " AND tablename <> 'fs_gate' ORDER BY 1")) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    /** The tables on which the session of {@code c} holds a granted lock. */
    private static List<String> locksHeld(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT relation::regclass::text FROM pg_locks WHERE pid = pg_backend_pid()"
                     + " AND locktype = 'relation' AND granted")) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    private static boolean dumpHoldsTheGate(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
                     + " WHERE a.application_name = 'pg_dump' AND l.relation = 'fs_gate'::regclass AND l.granted")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    /** No connection of the mount's pool keeps a lock on the gate once its transaction is over. */
    private static void assertNoGateLeftOnTheMountsConnections() throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            int held = -1;
            for (int i = 0; i < 20 && held != 0; i++) {
                if (i > 0) Thread.sleep(100); // a background write of the mount may be in flight
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)"
                        + " WHERE a.application_name = 'ringfuse-sqlfs' AND l.relation = 'fs_gate'::regclass")) {
                    rs.next();
                    held = rs.getInt(1);
                }
            }
            assertEquals(0, held, "locks on fs_gate left on the mount's connections");
        }
    }

    private static long drain(InputStream in) throws IOException {
        long n = 0;
        byte[] buf = new byte[1 << 16];
        for (int k; (k = in.read(buf)) > 0; ) n += k;
        return n;
    }
}
