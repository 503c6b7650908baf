package dev.ringfuse.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.Errno;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Random;

/** Small helpers shared by the scenarios. */
public final class Check {
    private Check() {}

    /**
     * FileChannel's O_DIRECT, {@code com.sun.nio.file.ExtendedOpenOption.DIRECT} (module jdk.unsupported),
     * looked up by name: a compile-time reference is an "internal proprietary API" warning, and a javadoc
     * warning fails the testkit's build.
     */
    public static final OpenOption O_DIRECT = extendedOption("DIRECT");

    private static OpenOption extendedOption(String name) {
        try {
            return (OpenOption) Class.forName("com.sun.nio.file.ExtendedOpenOption").getField(name).get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A step that may fail with an errno. */
    @FunctionalInterface
    public interface Step { void run() throws Exception; }

    /** Work on an open file descriptor. */
    @FunctionalInterface
    public interface FdBody { void run(int fd) throws Exception; }

    /** Opens {@code p} with {@code flags}, runs {@code body} on the descriptor, always closes it. */
    public static void withFd(Path p, int flags, FdBody body) throws Exception {
        int fd = Libc.open(p.toString(), flags, 0);
        try {
            body.run(fd);
        } finally {
            Libc.close(fd);
        }
    }

    /** Asserts that {@code step} fails with exactly {@code expected}. */
    public static void assertErrno(Errno expected, Step step) {
        try {
            step.run();
        } catch (ErrnoException e) {
            assertEquals(expected, e.error(), () -> "expected " + expected + " but got: " + e.getMessage());
            return;
        } catch (Exception e) {
            throw new AssertionError("expected " + expected + " but got " + e, e);
        }
        fail("expected " + expected + " but the call succeeded");
    }

    /** The path as a String for {@link Libc}. */
    public static String s(Path p) { return p.toString(); }

    /** {@code len} deterministic pseudo-random bytes for {@code seed}. */
    public static byte[] pattern(long seed, int len) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Sleeps long enough for a coarse filesystem clock to tick (timestamps are then strictly later). */
    public static void tick() throws InterruptedException { Thread.sleep(25); }

    /** This process's umask, from /proc/self/status. */
    public static int umask() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Umask:")) return Integer.parseInt(line.substring(6).trim(), 8);
        }
        return 022;
    }

    /** Nanoseconds since the epoch, from the wall clock. */
    public static long nowNs() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /** Creates {@code p} with {@code content} and returns it. */
    public static Path file(Path p, byte[] content) throws IOException {
        Files.write(p, content);
        return p;
    }

    /** Creates {@code p} with {@code content} (UTF-8) and returns it. */
    public static Path file(Path p, String content) throws IOException {
        Files.writeString(p, content);
        return p;
    }
}
