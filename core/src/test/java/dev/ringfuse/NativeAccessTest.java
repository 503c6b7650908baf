package dev.ringfuse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** A JVM started without --enable-native-access gets an exception that names the flag, and nothing is mounted. */
@Timeout(60)
class NativeAccessTest {
    @TempDir
    Path dir;

    /** Mounts HelloFs at args[0]; prints the exception's class and message. */
    public static void main(String[] args) {
        try (Mount m = Fuse.mount(Path.of(args[0]), new HelloFs())) {
            System.out.println("mounted");
        } catch (Exception | Error e) {
            System.out.println(e.getClass().getName() + ": " + e.getMessage());
        }
    }

    @Test
    void withoutTheFlagTheLibrarySaysWhichFlag() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                NativeAccessTest.class.getName(), dir.toString())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertTrue(out.contains("java.lang.IllegalCallerException: ringfuse calls the kernel through the FFM API"), out);
        assertTrue(out.contains("add --enable-native-access=ALL-UNNAMED to the java command line"), out);
        assertFalse(Files.readString(Path.of("/proc/self/mounts")).contains(" " + dir + " "), "nothing mounted");
    }
}
