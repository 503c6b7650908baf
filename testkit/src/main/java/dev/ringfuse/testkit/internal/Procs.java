package dev.ringfuse.testkit.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Child processes for the scenarios: coreutils, python3 for syscalls, and steps run as another user. */
public final class Procs {
    private Procs() {}

    /** How a child ended: exit code, stdout, stderr. */
    public record Result(int exit, String out, String err) {
        /** The output lines of a {@link #python} probe: label to "OK" or an errno name such as "EACCES". */
        public Map<String, String> outcomes() {
            Map<String, String> m = new LinkedHashMap<>();
            for (String line : out.split("\n")) {
                int sp = line.indexOf(' ');
                if (sp > 0) m.put(line.substring(0, sp), line.substring(sp + 1).trim());
            }
            return m;
        }
    }

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** A system python3 (not a per-user shim), so that steps run as another uid find it too. */
    public static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    /** Prelude for python probes: {@code t(label, fn)} prints "label OK" or "label ERRNONAME". */
    public static final String PRELUDE = """
            import os, sys, errno, fcntl, struct, time
            def t(label, f):
                try:
                    f(); print(label, "OK", flush=True)
                except OSError as e:
                    print(label, errno.errorcode.get(e.errno, str(e.errno)), flush=True)
            def need(ok):
                if not ok:
                    raise PermissionError(errno.EACCES, "access(2) said no")
            """;

    /** A started child whose stdout and stderr go to temp files. Close kills it if still running. */
    public record Child(Process process, File out, File err) implements AutoCloseable {
        /** What the child has printed so far. */
        public String stdout() throws IOException { return Files.readString(out.toPath(), StandardCharsets.UTF_8); }

        /** Waits until stdout contains {@code marker}; fails after {@code timeout} or if the child ends first. */
        public void awaitOutput(String marker, Duration timeout) throws IOException, InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (!stdout().contains(marker)) {
                if (!process.isAlive() && !stdout().contains(marker)) {
                    throw new AssertionError("child ended (exit " + process.exitValue() + ") before printing " + marker
                            + ": " + Files.readString(err.toPath(), StandardCharsets.UTF_8));
                }
                if (System.nanoTime() > end) throw new AssertionError("child did not print " + marker + " in " + timeout);
                Thread.sleep(10);
            }
        }

        /** Waits for the end; kills the child and fails if it outlives {@code timeout}. */
        public Result await(Duration timeout) throws IOException, InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("child did not finish within " + timeout + ": "
                        + process.info().commandLine().orElse("?"));
            }
            return new Result(process.exitValue(), stdout(), Files.readString(err.toPath(), StandardCharsets.UTF_8));
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                process.destroyForcibly();
                try { process.waitFor(10, TimeUnit.SECONDS); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            }
            out.delete();
            err.delete();
        }
    }

    /** Starts a child with stdin from /dev/null. */
    public static Child start(List<String> cmd) throws IOException {
        File out = File.createTempFile("ringfuse-proc", ".out");
        File err = File.createTempFile("ringfuse-proc", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        return new Child(p, out, err);
    }

    /** Runs a command to its end. */
    public static Result run(Duration timeout, List<String> cmd) throws IOException, InterruptedException {
        try (Child c = start(cmd)) {
            return c.await(timeout);
        }
    }

    public static Result run(String... cmd) throws IOException, InterruptedException {
        return run(DEFAULT_TIMEOUT, List.of(cmd));
    }

    /** Runs a shell script with sh -c; extra arguments become $1, $2, ... */
    public static Result sh(String script, String... args) throws IOException, InterruptedException {
        return run(DEFAULT_TIMEOUT, withArgs(List.of("sh", "-c", script, "sh"), args));
    }

    /** Runs {@code cmd} as uid:gid with no supplementary groups (setpriv). */
    public static Result runAs(int uid, int gid, String... cmd) throws IOException, InterruptedException {
        return run(DEFAULT_TIMEOUT, asUser(uid, gid, List.of(cmd)));
    }

    /** The command line that runs {@code cmd} as uid:gid. */
    public static List<String> asUser(int uid, int gid, List<String> cmd) {
        List<String> l = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups"));
        l.addAll(cmd);
        return l;
    }

    /** The command line of a python3 script after {@link #PRELUDE}; arguments in sys.argv[1:]. */
    public static List<String> pythonCmd(String body, String... args) {
        return withArgs(List.of(python(), "-c", PRELUDE + body), args);
    }

    /** Runs a python3 script (after {@link #PRELUDE}) as the current user. */
    public static Result python(String body, String... args) throws IOException, InterruptedException {
        return run(DEFAULT_TIMEOUT, pythonCmd(body, args));
    }

    /** Runs a python3 script (after {@link #PRELUDE}) as uid:gid. */
    public static Result pythonAs(int uid, int gid, String body, String... args) throws IOException, InterruptedException {
        return run(DEFAULT_TIMEOUT, asUser(uid, gid, pythonCmd(body, args)));
    }

    /** Runs a python3 script (after {@link #PRELUDE}) as uid:gid with exactly {@code groups} as supplementary groups. */
    public static Result pythonAsWithGroups(int uid, int gid, int[] groups, String body, String... args)
            throws IOException, InterruptedException {
        StringBuilder g = new StringBuilder();
        for (int x : groups) g.append(g.isEmpty() ? "" : ",").append(x);
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid,
                groups.length == 0 ? "--clear-groups" : "--groups=" + g));
        cmd.addAll(pythonCmd(body, args));
        return run(DEFAULT_TIMEOUT, cmd);
    }

    private static List<String> withArgs(List<String> head, String... args) {
        List<String> l = new ArrayList<>(head);
        l.addAll(List.of(args));
        return l;
    }

    /** True if {@code tool} is on the PATH. */
    public static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
