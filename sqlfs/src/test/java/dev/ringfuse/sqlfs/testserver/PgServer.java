package dev.ringfuse.sqlfs.testserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server from Debian's packages for tests: initdb into a temporary directory (as user
 * {@code postgres} when running as root), started by pg_ctl on a free localhost port with its socket in
 * that directory, password authentication for TCP, stopped and removed by {@link #close}. Installs the
 * {@code postgresql} package with apt-get when it is missing and we are root.
 */
public final class PgServer implements AutoCloseable {
    public static final String USER = "postgres";
    public static final String PASSWORD = "ringfuse-test";
    private static final AtomicInteger DBS = new AtomicInteger();

    private final Path bin;
    private final Path dir;
    private final int port;
    /** Stops the server and removes its directory if this JVM dies without {@link #close} (SIGKILL). */
    private Process watchdog;
    private static final String PREFIX = "sqlfs-pg";
    /** The file in the server's directory that names the JVM that started it. */
    private static final String OWNER = "owner.pid";

    private PgServer(Path bin, Path dir, int port) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
    }

    public static PgServer start() {
        try {
            Path bin = binDir();
            stopStale(bin);
            Path dir = Files.createTempDirectory(PREFIX);
            Files.writeString(dir.resolve(OWNER), ProcessHandle.current().pid() + "\n");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(dir.resolve("pw"), PASSWORD + "\n");
            if (root()) run(List.of("chown", "-R", "postgres:postgres", dir.toString()), 30);
            runAsPostgres(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", USER,
                    "--pwfile=" + dir.resolve("pw"), "-A", "scram-sha-256", "--no-sync", "-E", "UTF8"), 120);
            PgServer s = new PgServer(bin, dir, freePort());
            s.watchdog = watchdog(bin, dir);
            s.startServer();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void startServer() throws IOException {
        runAsPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "60",
                "-l", dir.resolve("log").toString(), "-o",
                "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c max_connections=200", "start"), 90);
    }

    /** Stops the server the hard way (as a crash would) and starts it again; the WAL is replayed. */
    public void crashRestart() throws IOException {
        runAsPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
                "-w", "stop"), 60);
        startServer();
    }

    public void stop() throws IOException {
        runAsPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
                "-w", "stop"), 60);
    }

    public void startAgain() throws IOException {
        startServer();
    }

    public int port() { return port; }

    /** The server's directory (data, socket, log), removed by {@link #close} or by the watchdog. */
    public Path dir() { return dir; }

    /** A client program of the server's own version ({@code pg_dump}, {@code psql}, ...). */
    public Path tool(String name) { return bin.resolve(name); }

    /**
     * Starts a server, prints {@code PORT DIR} and waits for stdin to close: for the test that kills this
     * JVM with SIGKILL and expects the server to go with it.
     */
    public static void main(String[] args) throws IOException {
        PgServer s = start();
        System.out.println(s.port + " " + s.dir);
        System.out.flush();
        System.in.read();
        s.close();
    }

    /** A new empty database; its JDBC URL with the test user and password. */
    public String newDatabase() {
        String name = "fs" + ProcessHandle.current().pid() + "_" + DBS.incrementAndGet();
        try (Connection c = DriverManager.getConnection(url("postgres")); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (Exception e) {
            throw new IllegalStateException("CREATE DATABASE failed", e);
        }
        return url(name);
    }

    public String url(String db) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db + "?user=" + USER + "&password=" + PASSWORD;
    }

    /**
     * A process of its own session (it outlives this JVM) that waits for the JVM to end, then stops the
     * server the hard way and removes its directory: a JVM killed with SIGKILL skips {@link #close}, and
     * repeated CI runs must not accumulate servers.
     */
    private static Process watchdog(Path bin, Path dir) throws IOException {
        String stop = (root() ? "setpriv --reuid=postgres --regid=postgres --init-groups " : "")
                + bin.resolve("pg_ctl") + " -D " + dir.resolve("data") + " -m immediate -w stop";
        String script = "while kill -0 " + ProcessHandle.current().pid() + " 2>/dev/null; do sleep 1; done; "
                + stop + " >/dev/null 2>&1; rm -rf " + dir;
        return new ProcessBuilder("setsid", "sh", "-c", script).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /**
     * Servers of earlier test JVMs that died before their watchdog could act (or that predate it): a
     * directory whose owner JVM is gone is stopped and removed.
     */
    private static void stopStale(Path bin) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> dirs = Files.list(tmp)) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith(PREFIX)).toList()) {
                Path owner = d.resolve(OWNER);
                if (!Files.isRegularFile(owner)) continue;
                long pid;
                try {
                    pid = Long.parseLong(Files.readString(owner).trim());
                } catch (IOException | NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).isPresent()) continue;
                try {
                    if (Files.exists(d.resolve("data").resolve("postmaster.pid"))) {
                        runAsPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", d.resolve("data").toString(),
                                "-m", "immediate", "-w", "stop"), 60);
                    }
                } catch (IOException ignored) {
                    // not running any more: only the directory is left
                }
                run(List.of("rm", "-rf", d.toString()), 60);
            }
        } catch (IOException ignored) {
            // nothing to clean, or not allowed to: the new server starts anyway
        }
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (IOException | RuntimeException e) {
            // still remove the directory
        }
        try {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor();
        } catch (IOException | InterruptedException ignored) {
            // best effort
        }
        if (watchdog != null) watchdog.destroy(); // nothing left for it to do
    }

    private static Path binDir() throws IOException {
        Path base = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(base) && root()) {
            run(List.of("apt-get", "install", "-y", "-q", "postgresql"), 600);
        }
        if (!Files.isDirectory(base)) throw new IllegalStateException("PostgreSQL is not installed: apt-get install postgresql");
        try (Stream<Path> s = Files.list(base)) {
            return s.map(p -> p.resolve("bin")).filter(p -> Files.isExecutable(p.resolve("initdb")))
                    .max(Comparator.comparingInt(p -> Integer.parseInt(p.getParent().getFileName().toString().replaceAll("\\D", "0"))))
                    .orElseThrow(() -> new IllegalStateException("no initdb under " + base));
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void runAsPostgres(List<String> cmd, int seconds) throws IOException {
        List<String> full = new ArrayList<>();
        if (root()) full.addAll(Arrays.asList("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
        full.addAll(cmd);
        run(full, seconds);
    }

    private static void run(List<String> cmd, int seconds) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + cmd);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + cmd);
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (p.exitValue() != 0) throw new IOException("failed (" + p.exitValue() + "): " + cmd + "\n" + out);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
