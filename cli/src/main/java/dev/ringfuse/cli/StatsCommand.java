package dev.ringfuse.cli;

import dev.ringfuse.stats.StatsSocket;
import java.io.IOException;
import java.net.SocketException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ringfuse stats MNT}: the live statistics of a running ringfuse mount, refreshed in place like top. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Show a running ringfuse mount's statistics: per-opcode counts, errors, bytes, p50/p99/max latency, in-flight requests.")
final class StatsCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "The mount point")
    Path mountpoint;

    @Option(names = "--once", description = "Print one snapshot and exit")
    boolean once;

    @Option(names = "--json", description = "Print one snapshot as JSON and exit")
    boolean json;

    @Option(names = "--interval", description = "Seconds between refreshes (default: ${DEFAULT-VALUE})", defaultValue = "1")
    double interval;

    @Option(names = "--metrics", paramLabel = "[ADDR:]PORT",
            description = "Serve the statistics in the Prometheus text format on http://ADDR:PORT/metrics (ADDR defaults to 127.0.0.1) until interrupted")
    String metrics;

    @Override
    public Integer call() throws Exception {
        Path socket = StatsSocket.locate(mountpoint);
        if (metrics != null) {
            MetricsServer server = MetricsServer.start(metrics, socket);
            System.out.println("ringfuse: metrics of " + mountpoint + " on " + server.url());
            Thread.currentThread().join();
        }
        StatsSnapshot s = read(socket);
        if (json) {
            System.out.println(s.json());
            return 0;
        }
        if (once) {
            System.out.print(s.table(null));
            return 0;
        }
        StatsSnapshot previous = null;
        while (true) {
            // home, clear screen: the table is redrawn in place
            System.out.print("\033[H\033[2J" + s.table(previous));
            System.out.flush();
            Thread.sleep((long) (interval * 1000));
            previous = s;
            try {
                s = read(socket);
            } catch (IOException gone) {
                System.out.println("\nringfuse: " + mountpoint + " is no longer served");
                return 0;
            }
        }
    }

    /** Reads one snapshot, with a message a user can act on. */
    static StatsSnapshot read(Path socket) throws IOException {
        try {
            return StatsSnapshot.parse(StatsSocket.read(socket));
        } catch (AccessDeniedException e) {
            throw new IOException("permission denied: " + socket + " (only the mount's owner and root may read its statistics)", e);
        } catch (NoSuchFileException e) {
            throw new IOException("no statistics socket " + socket + ": the mount is not served by a ringfuse with live statistics", e);
        } catch (SocketException e) {
            if (String.valueOf(e.getMessage()).contains("Permission denied")) {
                throw new IOException("permission denied: " + socket + " (only the mount's owner and root may read its statistics)", e);
            }
            throw new IOException("cannot read " + socket + ": " + e.getMessage(), e);
        }
    }
}
