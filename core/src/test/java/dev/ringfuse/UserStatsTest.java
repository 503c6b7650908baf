package dev.ringfuse;

import dev.ringfuse.stats.StatsSocket;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The statistics of a mount started by an unprivileged user (uid 65534, through fusermount3): its owner and
 * root read them, another unprivileged user (uid 65533) cannot connect.
 */
@Timeout(180)
class UserStatsTest {
    @TempDir
    Path dir;

    @Test
    void ownerAndRootReadOtherUsersDoNot() throws Exception {
        Path fuse = Path.of("/dev/fuse");
        var before = Files.getPosixFilePermissions(fuse);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path mnt = Files.createDirectory(dir.resolve("user-mnt"));
        new ProcessBuilder("chown", "65534:65534", mnt.toString()).inheritIO().start().waitFor();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // /dev/fuse open to everyone until the child has mounted (restored below), as in MountMethodsTest
        Files.setPosixFilePermissions(fuse, PosixFilePermissions.fromString("rw-rw-rw-"));
        Process server = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", java,
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                UserStatsMountMain.class.getName(), mnt.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String ready;
            while ((ready = out.readLine()) != null && !ready.startsWith("READY") && !ready.startsWith("MOUNT-ERROR")) {
                // JVM warnings
            }
            Files.setPosixFilePermissions(fuse, before);
            assertNotNull(ready, "the child printed nothing");
            assertTrue(ready.startsWith("READY"), ready);
            Path socket = Path.of(ready.substring(6));
            assertEquals(socket, StatsSocket.locate(mnt), "root finds the same socket from the mount point");
            assertTrue(socket.startsWith("/run/user/65534") || socket.startsWith("/tmp/ringfuse-65534"), socket.toString());

            String snapshot = StatsSocket.read(socket); // root
            assertTrue(snapshot.startsWith("ringfuse-stats 1\n"), snapshot);
            assertTrue(snapshot.contains("\nmountpoint " + mnt + "\n"), snapshot);
            assertTrue(snapshot.contains("\nop READ 1 0 "), snapshot);

            assertEquals("read", connectAs(65534, socket), "the owner reads");
            assertEquals("denied", connectAs(65533, socket), "another user may not");
        } finally {
            Files.setPosixFilePermissions(fuse, before);
            server.getOutputStream().close(); // the child unmounts and exits
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "child JVM ended");
        }
        assertFalse(Files.readString(Path.of("/proc/self/mounts")).contains(" " + mnt + " "), "unmounted");
    }

    private static String connectAs(int uid, Path socket) throws Exception {
        Process p = new ProcessBuilder("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "/usr/bin/python3", "-c",
                "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1])\n"
                        + " print('read' if s.recv(100).startswith(b'ringfuse-stats') else 'empty')\n"
                        + "except PermissionError: print('denied')", socket.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
