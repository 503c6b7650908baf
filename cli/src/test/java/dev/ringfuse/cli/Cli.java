package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The ringfuse command, run as a child JVM from the test classpath (what ./ringfuse runs, minus the build). */
final class Cli {
    private Cli() {}

    static final Duration READY = Duration.ofSeconds(60);

    /** The command line of {@code ringfuse args...}. */
    static List<String> cmd(String... args) {
        List<String> l = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        l.addAll(List.of(args));
        return l;
    }

    /**
     * As {@link #cmd}, for another user: the classpath's jars (from root's ~/.m2, which others cannot read)
     * copied into {@code dir}, which must be readable by everyone.
     */
    static List<String> cmdForOthers(Path dir, String... args) throws IOException {
        List<String> cp = new ArrayList<>();
        Path jars = Files.createDirectories(dir.resolve("cp"));
        jars.toFile().setReadable(true, false);
        jars.toFile().setExecutable(true, false);
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(e);
            if (Files.isRegularFile(p)) {
                Path copy = jars.resolve(cp.size() + "-" + p.getFileName());
                Files.copy(p, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                copy.toFile().setReadable(true, false);
                cp.add(copy.toString());
            } else {
                cp.add(e);
            }
        }
        List<String> l = new ArrayList<>(cmd(args));
        l.set(l.indexOf("-cp") + 1, String.join(java.io.File.pathSeparator, cp));
        return l;
    }

    /** Runs {@code ringfuse args...} to its end (60 s at most). */
    static Procs.Result run(String... args) throws IOException, InterruptedException {
        return Procs.run(Duration.ofSeconds(60), cmd(args));
    }

    /** Starts a serving {@code ringfuse mount ...} and waits until it says the mount is live. */
    static Procs.Child serve(List<String> cmd) throws IOException, InterruptedException {
        Procs.Child c = Procs.start(cmd);
        try {
            c.awaitOutput("mounted at", READY);
        } catch (AssertionError e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** {@code ringfuse args...} with a pool list of the caller's own ({@code RINGFUSE_POOLS=pools}). */
    static List<String> cmdWithPools(Path pools, String... args) {
        List<String> l = new java.util.ArrayList<>(List.of("env", "RINGFUSE_POOLS=" + pools));
        l.addAll(cmd(args));
        return l;
    }

    /** Requests of opcode {@code op} (e.g. "GETATTR") the mount at {@code mnt} has served so far, from `ringfuse stats --json`. */
    static long requests(Path mnt, String op) throws IOException, InterruptedException {
        Procs.Result r = run("stats", "--json", mnt.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("\\{\"op\":\\s*\"" + op + "\",\\s*\"count\":\\s*(\\d+)").matcher(r.out());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** The /proc/self/mounts line of {@code mnt}, or null. */
    static String mountLine(Path mnt) throws IOException {
        String want = " " + mnt.toAbsolutePath() + " ";
        return Files.readAllLines(Path.of("/proc/self/mounts")).stream().filter(l -> l.contains(want)).findFirst().orElse(null);
    }

    /** Lazily unmounts every mount under {@code dir}: what a failed test left (its servers were killed). */
    static void unmountAllUnder(Path dir) throws IOException, InterruptedException {
        String prefix = " " + dir.toAbsolutePath() + "/";
        List<String> points = Files.readAllLines(Path.of("/proc/self/mounts")).stream().filter(l -> l.contains(prefix))
                .map(l -> l.split(" ")[1]).toList();
        for (String p : points.reversed()) Procs.run("umount", "-l", p);
    }

    /** Unmounts {@code mnt} if mounted (lazily) and waits for the server {@code c} to end. */
    static Procs.Result unmount(Path mnt, Procs.Child c) throws IOException, InterruptedException {
        if (mountLine(mnt) != null) Procs.run("umount", mnt.toString());
        if (mountLine(mnt) != null) Procs.run("umount", "-l", mnt.toString());
        Procs.Result r = c.await(Duration.ofSeconds(30));
        assertTrue(mountLine(mnt) == null, "unmounted");
        return r;
    }
}
