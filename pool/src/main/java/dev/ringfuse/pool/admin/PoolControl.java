package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.txg.Pool;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The control socket of a pool in use: a process that has a dataset of the pool mounted (and so holds its
 * devices' locks) listens on {@code pools.d/POOL.sock} next to the pool list, and `ringfuse snapshot`,
 * `rollback`, `clone` send their command there instead of opening the pool. Request: one line, the
 * arguments joined by tabs (names never hold tabs). Answer: the command's output, then a last line
 * {@code \0EXIT n} or {@code \0ERROR message}. Only root (the socket's owner, mode 0600) may connect.
 */
public final class PoolControl implements AutoCloseable {
    private static final String EXIT = "\0EXIT ", ERROR = "\0ERROR ";
    private final ServerSocketChannel server;
    private final Path path;
    private final Thread thread;

    private PoolControl(ServerSocketChannel server, Path path, Pool pool) {
        this.server = server;
        this.path = path;
        this.thread = Thread.ofPlatform().daemon().name("pool-control-" + pool.name()).start(() -> serve(pool));
    }

    static Path socket(PoolRegistry r, String pool) {
        return StatusFile.path(r, pool).resolveSibling(pool + ".sock");
    }

    /** Starts answering commands for {@code pool} (a stale socket of a dead process is replaced). */
    public static PoolControl start(PoolRegistry r, Pool pool) throws IOException {
        Path p = socket(r, pool.name());
        Files.createDirectories(p.getParent());
        Files.deleteIfExists(p);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(p));
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return new PoolControl(s, p, pool);
    }

    private void serve(Pool pool) {
        while (server.isOpen()) {
            try (SocketChannel c = server.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
                String line = in.readLine();
                if (line == null) continue;
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
                String last;
                try {
                    last = EXIT + SnapshotAdmin.execute(pool, List.of(line.split("\t")), out);
                } catch (IOException | RuntimeException e) {
                    last = ERROR + (e.getMessage() == null ? e.toString() : e.getMessage()).replace('\n', ' ');
                }
                out.println(last);
                ByteBuffer bytes = ByteBuffer.wrap(buf.toByteArray());
                while (bytes.hasRemaining()) c.write(bytes);
            } catch (IOException e) {
                if (!server.isOpen()) return;
                System.err.println("pool " + pool.name() + ": control connection failed: " + e.getMessage());
            }
        }
    }

    /**
     * Sends {@code args} to the process that has the pool open, printing its output; returns the exit status,
     * or -1 when no process serves the pool (the caller opens it itself).
     */
    public static int send(PoolRegistry r, String pool, List<String> args, PrintStream out) throws IOException {
        Path p = socket(r, pool);
        if (!Files.exists(p)) return -1;
        SocketChannel c;
        try {
            c = SocketChannel.open(UnixDomainSocketAddress.of(p));
        } catch (IOException e) {
            return -1; // a socket left behind by a process that died
        }
        try (c) {
            ByteBuffer req = ByteBuffer.wrap((String.join("\t", args) + "\n").getBytes(StandardCharsets.UTF_8));
            while (req.hasRemaining()) c.write(req);
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith(EXIT)) return Integer.parseInt(line.substring(EXIT.length()).trim());
                if (line.startsWith(ERROR)) throw new IOException(line.substring(ERROR.length()));
                out.println(line);
            }
            throw new IOException("pool '" + pool + "': the serving process closed the control connection");
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(path);
        thread.interrupt();
    }
}
