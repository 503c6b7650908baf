package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.txg.Pool;
import java.io.BufferedReader;
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
 * arguments joined by tabs (names never hold tabs). Answer: the command's output as it is produced, lines
 * {@code \0PROGRESS done total} for a progress bar (scrub, replace), then a last line {@code \0EXIT n} or
 * {@code \0ERROR message}. `pool status`, `pool scrub` and `pool replace` of a mounted pool come here too
 * ({@link HealthAdmin}). Each connection is served on its own thread (a scrub does not hold up a snapshot).
 * Only root (the socket's owner, mode 0600) may connect.
 */
public final class PoolControl implements AutoCloseable {
    private static final String EXIT = "\0EXIT ", ERROR = "\0ERROR ", PROGRESS = "\0PROGRESS ";
    private final ServerSocketChannel server;
    private final Path path;
    private final Thread thread;
    private final PoolRegistry registry;

    private PoolControl(ServerSocketChannel server, Path path, Pool pool, PoolRegistry registry) {
        this.server = server;
        this.path = path;
        this.registry = registry;
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
        return new PoolControl(s, p, pool, r);
    }

    private void serve(Pool pool) {
        while (server.isOpen()) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (IOException e) {
                if (!server.isOpen()) return;
                System.err.println("pool " + pool.name() + ": control socket failed: " + e.getMessage());
                continue;
            }
            Thread.ofVirtual().name("pool-control-" + pool.name() + "-conn").start(() -> answer(pool, c));
        }
    }

    private void answer(Pool pool, SocketChannel c) {
        try (c) {
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null) return;
            PrintStream out = new PrintStream(Channels.newOutputStream(c), true, StandardCharsets.UTF_8);
            List<String> args = List.of(line.split("\t"));
            String last;
            try {
                int rc = args.getFirst().startsWith("pool-")
                        ? HealthAdmin.execute(registry, pool, args, out, remoteBars(out))
                        : SnapshotAdmin.execute(pool, args, out);
                last = EXIT + rc;
            } catch (IOException | RuntimeException e) {
                last = ERROR + (e.getMessage() == null ? e.toString() : e.getMessage()).replace('\n', ' ');
            }
            out.println(last);
            out.flush();
        } catch (IOException e) {
            System.err.println("pool " + pool.name() + ": control connection failed: " + e.getMessage());
        }
    }

    /** Progress as {@code \0PROGRESS done total} lines, at most ten a second. */
    private static HealthAdmin.Bars remoteBars(PrintStream out) {
        return total -> {
            long[] last = {0};
            return done -> {
                long now = System.nanoTime();
                if (now - last[0] < 100_000_000L) return;
                last[0] = now;
                out.println(PROGRESS + done + " " + total);
            };
        };
    }

    /**
     * Sends {@code args} to the process that has the pool open, printing its output; returns the exit status,
     * or -1 when no process serves the pool (the caller opens it itself).
     */
    public static int send(PoolRegistry r, String pool, List<String> args, PrintStream out) throws IOException {
        return send(r, pool, args, out, null);
    }

    /** As {@link #send(PoolRegistry, String, List, PrintStream)}, drawing the command's progress on {@code err}. */
    public static int send(PoolRegistry r, String pool, List<String> args, PrintStream out, PrintStream err) throws IOException {
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
            Progress bar = null;
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith(PROGRESS)) {
                    String[] f = line.substring(PROGRESS.length()).trim().split(" ");
                    if (err == null) continue;
                    if (bar == null) bar = new Progress(err, Math.max(1, Long.parseLong(f[1])));
                    bar.update(Long.parseLong(f[0]));
                    continue;
                }
                if (bar != null) { // the command's own output follows its progress
                    bar.done();
                    bar = null;
                }
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
