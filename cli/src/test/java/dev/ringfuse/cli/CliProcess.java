package dev.ringfuse.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The ringfuse command in its own JVM (this test's class path), its output in files. */
final class CliProcess implements AutoCloseable {
    final Process process;
    private final Path out, err;

    private CliProcess(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    static CliProcess start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("ringfuse-cli", ".out"), err = Files.createTempFile("ringfuse-cli", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new CliProcess(p, out, err);
    }

    /** Waits for the exit (at most {@code seconds}, then kills it) and returns the exit code. */
    int await(int seconds) throws InterruptedException, IOException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("ringfuse did not exit within " + seconds + " s; stderr: " + stderr());
        }
        return process.exitValue();
    }

    String stdout() throws IOException { return Files.readString(out, StandardCharsets.UTF_8); }

    String stderr() throws IOException { return Files.readString(err, StandardCharsets.UTF_8); }

    /** stderr without the JVM's own warnings. */
    List<String> errorLines() throws IOException {
        return stderr().lines().filter(l -> !l.isBlank() && !l.startsWith("WARNING")).toList();
    }

    @Override
    public void close() throws IOException {
        if (process.isAlive()) process.destroyForcibly();
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
    }
}
