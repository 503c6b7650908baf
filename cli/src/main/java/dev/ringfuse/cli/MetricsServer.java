package dev.ringfuse.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code --metrics [ADDR:]PORT}: the Prometheus text endpoint of one mount at {@code /metrics}. Each scrape
 * reads a fresh snapshot from the mount's statistics socket. Binds 127.0.0.1 unless an address is given.
 */
final class MetricsServer implements AutoCloseable {
    private final HttpServer http;

    private MetricsServer(HttpServer http) {
        this.http = http;
    }

    static MetricsServer start(String spec, Path socket) throws IOException {
        int colon = spec.lastIndexOf(':');
        String host = colon < 0 ? "127.0.0.1" : spec.substring(0, colon).replaceAll("^\\[|\\]$", "");
        int port;
        try {
            port = Integer.parseInt(spec.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IOException("--metrics wants [ADDR:]PORT, not " + spec);
        }
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 8);
        http.createContext("/metrics", ex -> answer(ex, socket));
        http.setExecutor(null);
        http.start();
        return new MetricsServer(http);
    }

    private static void answer(HttpExchange ex, Path socket) throws IOException {
        int status;
        byte[] body;
        try {
            body = StatsCommand.read(socket).prometheus().getBytes(StandardCharsets.UTF_8);
            status = 200;
            ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        } catch (IOException | RuntimeException e) {
            body = ("ringfuse: " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8);
            status = 503;
        }
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    String url() {
        InetSocketAddress a = http.getAddress();
        return "http://" + a.getHostString() + ":" + a.getPort() + "/metrics";
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
