package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the tests that hold memfs (and passthrough) against tmpfs share: one probe script, run by python3 or
 * bash on a directory of /dev/shm (the reference) and on a mount, whose outputs are then compared line by line.
 */
final class Probes {
    private static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");
    private static final Path SHM = Path.of("/dev/shm");

    private Probes() {}

    /** Skips the test without /dev/fuse or, for URING, without FUSE-over-io_uring (which it turns on). */
    static void assumeTransport(TransportKind transport) throws IOException {
        assumeTrue(Files.isWritable(Path.of("/dev/fuse")), "needs /dev/fuse");
        if (transport == TransportKind.URING) {
            assumeTrue(Files.isWritable(ENABLE_URING), "needs FUSE-over-io_uring");
            Files.writeString(ENABLE_URING, "1");
        }
    }

    /** A fresh directory on tmpfs; the test is skipped when /dev/shm is not a writable directory. */
    static Path tmpfsDir(String prefix) throws IOException {
        assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "needs tmpfs at /dev/shm");
        return Files.createTempDirectory(SHM, prefix);
    }

    /** Something run on a directory that answers with its output. */
    @FunctionalInterface
    interface Probe {
        String on(Path dir) throws Exception;
    }

    /** {@code probe}'s output on a fresh directory of tmpfs, removed afterwards. */
    static String onTmpfs(String prefix, Probe probe) throws Exception {
        Path dir = tmpfsDir(prefix);
        try {
            return probe.on(dir);
        } finally {
            remove(dir);
        }
    }

    /** {@code probe}'s output on {@code fs} mounted at {@code mnt}, unmounted afterwards. */
    static String onMount(Path mnt, LowLevelFileSystem fs, MountOptions options, Probe probe) throws Exception {
        try (Mount m = Fuse.mount(mnt, fs, options)) {
            return probe.on(m.mountpoint());
        }
    }

    /** rm -rf: the probes leave files only root may remove, and some of them read-only. */
    static void remove(Path dir) throws Exception {
        new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(60, TimeUnit.SECONDS);
    }

    /**
     * Runs {@code script} with {@code interpreter} ("python3", "bash") on {@code dir} and {@code args}; fails the
     * test when it takes longer than {@code timeoutSeconds} or exits non-zero; returns its output (stdout and
     * stderr), trimmed.
     */
    static String run(String interpreter, String script, Path dir, int timeoutSeconds, String... args) throws Exception {
        Path f = Files.createTempFile("probe", interpreter.equals("bash") ? ".sh" : ".py");
        Files.writeString(f, script);
        try {
            List<String> cmd = new ArrayList<>(List.of(interpreter, f.toString(), dir.toString()));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("script timed out after " + timeoutSeconds + " s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertEquals(0, p.exitValue(), out);
            return out;
        } finally {
            Files.deleteIfExists(f);
        }
    }

    /** The output line that starts with {@code label} and a space, or "" if there is none. */
    static String line(String out, String label) {
        return out.lines().filter(l -> l.startsWith(label + " ")).findFirst().orElse("");
    }

    /** The output without the lines that start with {@code label} and a space. */
    static String without(String out, String label) {
        return String.join("\n", out.lines().filter(l -> !l.startsWith(label + " ")).toList());
    }

    /** The text of a resource next to {@code owner}'s class file. */
    static String resource(Class<?> owner, String name) throws IOException {
        try (var in = owner.getResourceAsStream(name)) {
            assertTrue(in != null, "no resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
