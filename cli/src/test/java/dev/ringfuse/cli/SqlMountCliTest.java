package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.sqlfs.testserver.PgServer;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ringfuse mount sql} as a user runs it, each in its own JVM: bad databases are refused with one
 * line, a non-zero exit and nothing mounted; a server killed with SIGKILL after fsync loses nothing that
 * fsync acknowledged, and the database mounts again (its orphans cleaned).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SqlMountCliTest {
    @TempDir
    Path tmp;

    /** Runs a mount that must fail; returns its one line of error. */
    private String refused(String source) throws Exception {
        Path mnt = MountedFsKit.newMountpoint("sql-refused");
        try (CliProcess p = CliProcess.start("mount", "sql", source, mnt.toString(), "--transport", "dev")) {
            int exit = p.await(60);
            List<String> lines = p.errorLines();
            assertNotEquals(0, exit);
            assertTrue(MountedFsKit.mountAt(mnt).isEmpty(), "something was mounted");
            assertEquals(1, lines.size(), () -> "not one line: " + lines);
            assertTrue(lines.getFirst().startsWith("ringfuse: "), lines.getFirst());
            return lines.getFirst();
        } finally {
            MountedFsKit.forceUnmount(mnt);
        }
    }

    private static void sql(Path db, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            for (String q : statements) s.execute(q);
        }
    }

    @Test
    void aForeignSchemaIsRefused() throws Exception {
        Path db = tmp.resolve("crm.db");
        sql(db, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
        String line = refused(db.toString());
        assertTrue(line.contains("tables of another application (customers)"), line);
        sql(db, "SELECT count(*) FROM customers"); // untouched
    }

    @Test
    void aNewerSchemaIsRefused() throws Exception {
        Path db = tmp.resolve("future.db");
        sql(db, "CREATE TABLE schema_version (version INTEGER NOT NULL)", "INSERT INTO schema_version VALUES (99)",
                "CREATE TABLE fs_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "INSERT INTO fs_meta VALUES ('format', 'ringfuse-sqlfs'), ('chunk_size', '131072')");
        String line = refused(db.toString());
        // the version this build understands moves with the schema: only its form is checked
        assertTrue(line.matches(".*schema version 99, newer than this ringfuse understands \\(\\d+\\): upgrade ringfuse.*"), line);
    }

    @Test
    void aFileThatIsNoDatabaseIsRefused() throws Exception {
        Path db = tmp.resolve("random.bin");
        byte[] junk = new byte[8192];
        new Random(4).nextBytes(junk);
        Files.write(db, junk);
        String line = refused(db.toString());
        assertTrue(line.contains("not a database") || line.contains("not an SQLite database"), line);
        assertArrayEquals(junk, Files.readAllBytes(db), "the file was changed");
    }

    @Test
    void aReadOnlyDatabaseFileIsRefused() throws Exception {
        Path fsDir = Files.createDirectory(tmp.resolve("ro"));
        assertEquals(0, new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", fsDir.toString()).start().waitFor());
        try {
            Path db = fsDir.resolve("fs.db");
            dev.ringfuse.sqlfs.SqlFs.open(dev.ringfuse.sqlfs.SqlFsOptions.of(db.toString())).destroy(); // a valid filesystem
            assertEquals(0, new ProcessBuilder("mount", "-o", "remount,ro", fsDir.toString()).start().waitFor());
            String line = refused(db.toString());
            assertTrue(line.contains("for writing") && line.contains("Read-only file system"), line);
        } finally {
            new ProcessBuilder("umount", fsDir.toString()).start().waitFor();
        }
    }

    @Test
    void anUnreachableServerIsRefused() throws Exception {
        String line = refused("jdbc:postgresql://127.0.0.1:1/files?user=app&password=secret");
        assertTrue(line.contains("127.0.0.1:1") && line.contains("refused"), line);
        assertTrue(!line.contains("secret"), "the password is shown: " + line);
    }

    @Test
    void wrongCredentialsAreRefused() throws Exception {
        try (PgServer pg = PgServer.start()) {
            String url = pg.newDatabase().replace("password=" + PgServer.PASSWORD, "password=wrong");
            String line = refused(url);
            assertTrue(line.contains("password authentication failed"), line);
        }
    }

    @Test
    void killMinus9AfterFsyncLosesNothingAndTheDatabaseMountsAgain() throws Exception {
        Path db = tmp.resolve("fs.db");
        Path mnt = MountedFsKit.newMountpoint("sql-kill9");
        byte[][] data = new byte[20][];
        try (CliProcess server = mount(db, mnt)) {
            Random r = new Random(5);
            for (int i = 0; i < data.length; i++) {
                data[i] = new byte[10_000 + r.nextInt(400_000)];
                r.nextBytes(data[i]);
                try (FileChannel ch = FileChannel.open(mnt.resolve("f" + i), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    ch.write(ByteBuffer.wrap(data[i]));
                    ch.force(true);
                }
            }
            // an open file whose name is gone: kept as an orphan while open
            FileChannel open = FileChannel.open(mnt.resolve("orphan"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            open.write(ByteBuffer.wrap(new byte[100_000]));
            Files.delete(mnt.resolve("orphan"));
            assertEquals(1, count(db, "SELECT count(*) FROM orphans"));
            server.process.destroyForcibly(); // SIGKILL
            assertTrue(server.process.waitFor(30, TimeUnit.SECONDS));
            try {
                open.close();
            } catch (IOException expected) {
                // the server is gone
            }
        } finally {
            MountedFsKit.forceUnmount(mnt);
        }
        assertEquals(1, count(db, "SELECT count(*) FROM orphans"), "the orphan is still there before the remount");
        try (CliProcess server = mount(db, mnt)) {
            for (int i = 0; i < data.length; i++) assertArrayEquals(data[i], Files.readAllBytes(mnt.resolve("f" + i)), "f" + i);
            assertEquals(0, count(db, "SELECT count(*) FROM orphans"), "the mount cleans orphans of the dead one");
            assertEquals(data.length, count(db, "SELECT count(*) FROM inodes WHERE type = 'file'"));
            server.process.destroy(); // SIGTERM: the shutdown hook unmounts
            int exit = server.await(30);
            assertTrue(exit == 0 || exit == 128 + 15, "exit " + exit);
            assertTrue(MountedFsKit.mountAt(mnt).isEmpty(), "SIGTERM left the mount behind");
        } finally {
            MountedFsKit.forceUnmount(mnt);
        }
        assertTrue(MountedFsKit.mountAt(mnt).isEmpty());
    }

    private static CliProcess mount(Path db, Path mnt) throws Exception {
        CliProcess p = CliProcess.start("mount", "sql", db.toString(), mnt.toString(), "--transport", "dev");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!p.stdout().contains("mounted at") && System.nanoTime() < end) {
            if (!p.process.isAlive()) throw new AssertionError("mount failed: " + p.stderr());
            Thread.sleep(50);
        }
        assertTrue(MountedFsKit.mountAt(mnt).isPresent(), "not mounted: " + p.stderr());
        return p;
    }

    private static long count(Path db, String q) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(q)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
