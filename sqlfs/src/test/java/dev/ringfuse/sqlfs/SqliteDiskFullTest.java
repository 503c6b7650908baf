package dev.ringfuse.sqlfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
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
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite file on a small tmpfs (size=8m) fills up: writes answer ENOSPC, each write is in the
 * database whole or not at all, the database stays intact (integrity_check), and a file can still be
 * deleted (with the room {@link Reserve} held back); once the disk has room again, the mount writes again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SqliteDiskFullTest {
    @TempDir
    Path tmp;

    @Test
    void aFullDiskAnswersEnospcAndStaysConsistent() throws Exception {
        Path disk = Files.createDirectory(tmp.resolve("disk"));
        assertEquals(0, new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", disk.toString()).start().waitFor());
        Path db = disk.resolve("fs.db");
        Path mnt = MountedFsKit.newMountpoint("sql-full");
        Mount m = null;
        try {
            SqlFs fs = SqlFs.open(SqlFsOptions.of(db.toString()));
            m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mnt,
                    () -> Fuse.mount(mnt, fs, MountOptions.defaults().withTransport(TransportKind.DEV)));
            Path big = mnt.resolve("big");
            byte[] piece = new byte[256 * 1024];
            Arrays.fill(piece, (byte) 7);
            long written = 0;
            IOException full = null;
            try (FileChannel ch = FileChannel.open(big, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                for (int i = 0; i < 64; i++) { // 16 MiB into 8 MiB
                    ch.write(ByteBuffer.wrap(piece));
                    written += piece.length;
                }
            } catch (IOException e) {
                full = e;
            }
            assertTrue(full != null && String.valueOf(full.getMessage()).contains("No space left on device"), String.valueOf(full));
            assertEquals(written, Files.size(big), "a write that failed left a part of itself");
            byte[] back = Files.readAllBytes(big);
            for (byte x : back) if (x != 7) throw new AssertionError("bad byte in what was written");
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                rs.next();
                assertEquals("ok", rs.getString(1));
            }
            Files.delete(big); // needs room too: the reserve gives it
            assertTrue(!Files.exists(big));
            // SQLite keeps freed pages inside its file and its WAL cannot be checkpointed into a full disk: new
            // writes need room on the disk. Once the disk has room again, the same mount writes again.
            assertEquals(0, new ProcessBuilder("mount", "-o", "remount,size=32m", disk.toString()).start().waitFor());
            Files.write(mnt.resolve("after"), piece);
            assertEquals(piece.length, Files.size(mnt.resolve("after")));
        } finally {
            if (m != null) MountedFsKit.closeOrForce(m, mnt, Duration.ofSeconds(30));
            MountedFsKit.forceUnmount(mnt);
            new ProcessBuilder("umount", "-l", disk.toString()).start().waitFor(); // lazy: a pool thread may still close the file
        }
    }
}
