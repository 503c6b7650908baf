package dev.ringfuse.sqlfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.sqlfs.testserver.PgServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A test JVM killed with SIGKILL skips its finally blocks: the PostgreSQL server it started must still go
 * (its watchdog stops it and removes its directory), so that repeated runs never pile up servers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PgServerWatchdogTest {
    @Test
    void theServerOfAKilledJvmStopsAndItsDirectoryGoes() throws Exception {
        Process jvm = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), PgServer.class.getName()))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        int port;
        Path dir;
        try {
            String line = new BufferedReader(new InputStreamReader(jvm.getInputStream())).readLine();
            assertNotNull(line, "the JVM did not start a server");
            String[] f = line.split(" ", 2);
            port = Integer.parseInt(f[0]);
            dir = Path.of(f[1]);
            assertTrue(accepts(port), "the server runs");
        } finally {
            jvm.destroyForcibly(); // SIGKILL: no close(), no shutdown hooks
            jvm.waitFor(30, TimeUnit.SECONDS);
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((accepts(port) || Files.exists(dir)) && System.nanoTime() < end) Thread.sleep(200);
        assertFalse(accepts(port), "the server stopped with its JVM");
        assertFalse(Files.exists(dir), "its directory is removed");
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
