package dev.ringfuse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Both mount methods: mount(2) and the fusermount3 handshake, the latter as root and as an unprivileged
 * user (with /dev/fuse made 0666 for the test, as distributions ship it, and restored after).
 */
@Timeout(120)
class MountMethodsTest {
    @TempDir
    Path dir;

    @Test
    void directMount() throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withMethod(MountMethod.DIRECT))) {
            assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")));
            assertTrue(mounted(dir));
        }
        assertFalse(mounted(dir));
    }

    @Test
    void fusermountAsRoot() throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withMethod(MountMethod.FUSERMOUNT))) {
            assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")));
            assertTrue(mounted(dir));
        }
        assertFalse(mounted(dir));
    }

    @Test
    void fusermountAsUnprivilegedUser() throws Exception {
        Path fuse = Path.of("/dev/fuse");
        var before = Files.getPosixFilePermissions(fuse);
        Path mnt = Files.createDirectory(dir.resolve("user-mnt"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        run("chown", "65534:65534", mnt.toString());
        try {
            Files.setPosixFilePermissions(fuse, PosixFilePermissions.fromString("rw-rw-rw-"));
            String out = child(mnt, "AUTO");
            assertTrue(out.startsWith("OK"), "an unprivileged mount through fusermount3 works: " + out);
            assertTrue(out.contains("fusermount mount"), out);
            assertFalse(mounted(mnt), "the child unmounted with fusermount3 -u");
        } finally {
            Files.setPosixFilePermissions(fuse, before);
        }
        String denied = child(mnt, "DIRECT");
        assertTrue(denied.startsWith("MOUNT-ERROR"), denied);
        assertTrue(denied.contains("/dev/fuse") || denied.contains("mount(2) not permitted"), denied);
    }

    private static String child(Path mnt, String method) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", java,
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                UserMountMain.class.getName(), mnt.toString(), method)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM ended");
        List<String> lines = out.lines().filter(l -> l.startsWith("OK") || l.startsWith("MOUNT-ERROR") || l.startsWith("MISMATCH")).toList();
        return lines.isEmpty() ? out : lines.getLast();
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        assertEquals(0, p.waitFor());
    }

    static boolean mounted(Path p) throws IOException {
        String want = " " + p.toAbsolutePath() + " ";
        return Files.readAllLines(Path.of("/proc/self/mounts")).stream().anyMatch(l -> l.contains(want));
    }
}
