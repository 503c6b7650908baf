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

    private PgServer(Path bin, Path dir, int port) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
    }

    public static PgServer start() {
        try {
            Path bin = binDir();
            Path dir = Files.createTempDirectory("sqlfs-pg");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(dir.resolve("pw"), PASSWORD + "\n");
            if (root()) run(List.of("chown", "-R", "postgres:postgres", dir.toString()), 30);
            runAsPostgres(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", USER,
                    "--pwfile=" + dir.resolve("pw"), "-A", "scram-sha-256", "--no-sync", "-E", "UTF8"), 120);
            PgServer s = new PgServer(bin, dir, freePort());
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
