package dev.ringfuse.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** {@code ringfuse mount -v} traces each request on stderr, like libfuse's -d; without it the server is quiet. */
@Timeout(120)
class MountVerboseTest {
    @TempDir
    Path dir;

    @Test
    void verboseTracesEveryRequest() throws Exception {
        List<String> err = serve(true);
        assertTrue(err.stream().anyMatch(l -> l.matches("ringfuse: LOOKUP unique \\d+ node 1 in \\d+ -> ok out \\d+ in [0-9.]+ ms")), String.join("\n", err));
        assertTrue(err.stream().anyMatch(l -> l.matches("ringfuse: WRITE unique \\d+ node \\d+ in \\d+ -> ok out 24 in [0-9.]+ ms")), String.join("\n", err));
        assertTrue(err.stream().anyMatch(l -> l.matches("ringfuse: RMDIR unique \\d+ node 1 in \\d+ -> ENOTEMPTY \\(Directory not empty\\) out 16 in [0-9.]+ ms")),
                String.join("\n", err));
    }

    @Test
    void quietByDefault() throws Exception {
        assertEquals(List.of(), serve(false));
    }

    /** Mounts memfs with the CLI in its own JVM, drives a few requests, unmounts; returns its stderr lines. */
    private List<String> serve(boolean verbose) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "mount", "memfs", mnt.toString(), "--transport", "dev"));
        if (verbose) cmd.add("-v");
        Process p = new ProcessBuilder(cmd).start();
        List<String> err = new CopyOnWriteArrayList<>();
        Thread drain = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) err.add(l);
            } catch (java.io.IOException ignored) {
                // the process ended
            }
        });
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String first = out.readLine();
            assertNotNull(first, "server printed nothing: " + err);
            assertTrue(first.contains("mounted at"), first);
            Files.writeString(mnt.resolve("f"), "data");
            Files.createDirectories(mnt.resolve("d/e"));
            assertThrows(java.nio.file.DirectoryNotEmptyException.class, () -> Files.delete(mnt.resolve("d")));
            // a request's trace line is written after its reply: give the last one time to reach stderr
            for (int i = 0; verbose && i < 100 && err.stream().noneMatch(l -> l.contains(" RMDIR ")); i++) Thread.sleep(50);
        } finally {
            p.destroy(); // SIGTERM: the server unmounts
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "server did not stop");
            drain.join(5000);
        }
        assertFalse(Files.readString(Path.of("/proc/self/mounts")).contains(" " + mnt + " "), "unmounted");
        return err;
    }
}
