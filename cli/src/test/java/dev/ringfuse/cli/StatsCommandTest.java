package dev.ringfuse.cli;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.stats.StatsSocket;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A mount served in this JVM, traffic with known counts, then its statistics read from outside: by
 * {@code ringfuse stats} in another JVM (--json and --once), by the Prometheus endpoint, and refused to an
 * unprivileged user (a real connect(2) as uid 65534).
 */
@Timeout(120)
class StatsCommandTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    /** Bytes read from {@code f} with O_DIRECT (dd), so that every read is a request to the server. */
    private static long readDirect(Path f) throws Exception {
        Process p = new ProcessBuilder("dd", "if=" + f, "of=/dev/null", "bs=64k", "iflag=direct")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0, out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) bytes").matcher(out);
        assertTrue(m.find(), out);
        return Long.parseLong(m.group(1));
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void statsOfARunningMount(TransportKind transport) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        try (Mount m = Fuse.mount(mnt, new MemFs(), MountOptions.defaults().withTransport(transport))) {
            byte[] data = new byte[64 * 1024];
            for (int i = 0; i < 5; i++) Files.write(mnt.resolve("f" + i), data);
            // O_DIRECT: the written pages stay in the page cache (memfs keeps it), a buffered read would not reach the server
            for (int i = 0; i < 5; i++) assertEquals(data.length, readDirect(mnt.resolve("f" + i)));
            Files.createDirectories(mnt.resolve("d/e"));
            for (int i = 0; i < 3; i++) assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(mnt.resolve("d")));

            String json = cli("stats", "--json", mnt.toString());
            assertTrue(json.startsWith("{") && json.strip().endsWith("}"), json);
            assertTrue(json.contains("\"mountpoint\":\"" + mnt + "\""), json);
            assertTrue(json.contains("\"transport\":\"" + transport.name().toLowerCase(java.util.Locale.ROOT) + "\""), json);
            assertTrue(json.contains("\"inflight\":0"), json);
            assertEquals(3, field(json, "RMDIR", "count"));
            assertEquals(3, field(json, "RMDIR", "errors"));
            assertTrue(field(json, "WRITE", "count") >= 5, json);
            assertTrue(field(json, "WRITE", "bytes_in") >= 5L * data.length, json);
            assertTrue(field(json, "READ", "bytes_out") >= 5L * data.length, json);
            assertEquals(0, field(json, "READ", "errors"));
            long p50 = field(json, "READ", "p50_ns"), p99 = field(json, "READ", "p99_ns"), max = field(json, "READ", "max_ns");
            assertTrue(0 < p50 && p50 <= p99 && p99 <= max, p50 + " " + p99 + " " + max);

            String table = cli("stats", "--once", mnt.toString());
            assertTrue(table.contains("OPCODE") && table.contains("P99"), table);
            assertTrue(Pattern.compile("(?m)^RMDIR +3 +- +3 ").matcher(table).find(), table);
            assertTrue(Pattern.compile("(?m)^all +polls [0-9]+ catches [0-9]+ ").matcher(table).find(), "polling counters: " + table);
            // the keep-awake threads are io_uring's (transport.KeepAwake), absent on /dev/fuse
            boolean uring = transport == TransportKind.URING;
            assertEquals(uring, Pattern.compile("(?m)^keep-awake threads [0-9]+ kept_ns [0-9]+ starts [0-9]+$").matcher(table).find(), table);
            assertEquals(uring, json.contains("\"keepawake\":\"threads "), json);
            // the CPU latency request (transport.LatencyHint), by default on machines of 2 to 4 CPUs
            int cpus = Runtime.getRuntime().availableProcessors();
            assertEquals(cpus >= 2 && cpus <= 4, Pattern.compile("(?m)^latency-request held [01] holds [0-9]+( refused)?$").matcher(table).find(), table);

            Path socket = StatsSocket.locate(mnt);
            try (MetricsServer metrics = MetricsServer.start("0", socket)) {
                assertTrue(metrics.url().startsWith("http://127.0.0.1:"), "loopback unless told otherwise: " + metrics.url());
                HttpURLConnection c = (HttpURLConnection) URI.create(metrics.url()).toURL().openConnection();
                assertEquals(200, c.getResponseCode());
                assertTrue(c.getContentType().startsWith("text/plain; version=0.0.4"), c.getContentType());
                String body = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                String l = "{mountpoint=\"" + mnt + "\",op=\"RMDIR\"}";
                assertTrue(body.contains("ringfuse_requests_total" + l + " 3\n"), body);
                assertTrue(body.contains("ringfuse_request_errors_total" + l + " 3\n"), body);
                assertTrue(body.contains("# TYPE ringfuse_request_duration_seconds summary\n"), body);
                assertTrue(body.contains("ringfuse_requests_in_flight{mountpoint=\"" + mnt + "\"} 0\n"), body);
            }

            // another user may not even connect (the directory is 0700, the socket 0600)
            Process p = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                    "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1]); print('connected')\n"
                            + "except PermissionError as e: print('denied')", socket.toString())
                    .redirectErrorStream(true).start();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals("denied", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        }
        assertThrows(IOException.class, () -> StatsSocket.locate(mnt), "no longer a mount");
    }

    private static long field(String json, String op, String name) {
        Matcher m = Pattern.compile("\\{\"op\":\"" + op + "\"[^}]*\"" + name + "\":(\\d+)").matcher(json);
        assertTrue(m.find(), op + "." + name + " in " + json);
        return Long.parseLong(m.group(1));
    }

    /** Runs the command line in its own JVM (a reader from outside the serving process); returns its output. */
    private static String cli(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
