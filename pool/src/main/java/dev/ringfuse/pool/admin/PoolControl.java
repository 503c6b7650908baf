package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.txg.Pool;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The control socket of a pool in use: a process that has a dataset of the pool mounted (and so holds its
 * devices' locks) listens on {@code pools.d/POOL.sock} next to the pool list, and `ringfuse snapshot`,
 * `rollback`, `clone`, `send` and `receive` send their command there instead of opening the pool. Request:
 * one line, the arguments joined by tabs (names never hold tabs). Answer to any other command: its output as it
 * is produced, lines {@code \0PROGRESS done total} for a progress bar (scrub, replace), then a last line
 * {@code \0EXIT n} or {@code \0ERROR message}; `pool status`, `pool scrub` and `pool replace` of a mounted pool
 * come here too ({@link HealthAdmin}). `send` and `receive` carry a stream: see {@link StreamCommands}. Each connection is served on its own virtual thread (at most {@link #MAX_CONNECTIONS}
 * at once), so a long send does not hold up a snapshot or a listing. Only root (the socket's owner, mode
 * 0600) may connect.
 */
public final class PoolControl implements AutoCloseable {
    static final String EXIT = "\0EXIT ", ERROR = "\0ERROR ", PROGRESS = "\0PROGRESS ";
    /** Connections served at once; more are refused with a message (each may hold a send's reads). */
    static final int MAX_CONNECTIONS = 16;
    private final ServerSocketChannel server;
    private final Path path;
    private final Thread thread;
    private final Semaphore slots = new Semaphore(MAX_CONNECTIONS);
    private final Set<SocketChannel> active = ConcurrentHashMap.newKeySet();
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
        StreamCommands.removeStaleSpools(p.getParent(), pool.name());
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
                System.err.println("pool " + pool.name() + ": control socket: " + e.getMessage());
                continue;
            }
            if (!slots.tryAcquire()) {
                refuse(c, "pool '" + pool.name() + "' is serving " + MAX_CONNECTIONS + " control connections: try again later");
                continue;
            }
            active.add(c);
            Thread.ofVirtual().name("pool-control-conn").start(() -> {
                try (c) {
                    answer(pool, c);
                } catch (IOException e) {
                    if (server.isOpen()) System.err.println("pool " + pool.name() + ": control connection failed: " + e.getMessage());
                } finally {
                    active.remove(c);
                    slots.release();
                }
            });
        }
    }

    private static void refuse(SocketChannel c, String why) {
        try (c) {
            write(c, (ERROR + why + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException ignored) {
            // the client went away: nothing to tell
        }
    }

    private void answer(Pool pool, SocketChannel c) throws IOException {
        InputStream in = new BufferedInputStream(Channels.newInputStream(c), 1 << 16);
        String line = readLine(in);
        if (line == null) return;
        List<String> args = List.of(line.split("\t"));
        if (StreamCommands.handles(args)) {
            StreamCommands.serve(pool, args, in, Channels.newOutputStream(c), path.getParent());
            return;
        }
        PrintStream out = new PrintStream(Channels.newOutputStream(c), true, StandardCharsets.UTF_8);
        String last;
        try {
            int rc = args.getFirst().startsWith("pool-")
                    ? HealthAdmin.execute(registry, pool, args, out, remoteBars(out))
                    : SnapshotAdmin.execute(pool, args, out);
            last = EXIT + rc;
        } catch (IOException | RuntimeException e) {
            last = ERROR + message(e);
        }
        out.println(last);
        out.flush();
    }

    /**
     * Progress as {@code \0PROGRESS done total} lines, at most ten a second. Once the socket is closed it
     * throws, which ends a scrub or resilver: {@link #close} closed its connection, but a PrintStream keeps
     * write errors to itself, and the command would go on over devices the pool is about to close.
     */
    private HealthAdmin.Bars remoteBars(PrintStream out) {
        return total -> {
            long[] last = {0};
            return done -> {
                if (!server.isOpen()) throw new UncheckedIOException(new IOException("the pool's control socket closed (unmount)"));
                long now = System.nanoTime();
                if (now - last[0] < 100_000_000L) return;
                last[0] = now;
                out.println(PROGRESS + done + " " + total);
            };
        };
    }

    static String message(Exception e) {
        return (e.getMessage() == null ? e.toString() : e.getMessage()).replace('\n', ' ');
    }

    private static void write(SocketChannel c, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) c.write(b);
    }

    /** One request line, read byte by byte: what follows it (a receive's stream) stays in {@code in}. */
    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
            if (line.size() > 1 << 16) throw new IOException("control request line too long");
            line.write(b);
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    /** Connects to the process serving {@code pool}, or null when none does (the caller opens the pool itself). */
    static SocketChannel connect(PoolRegistry r, String pool) {
        Path p = socket(r, pool);
        if (!Files.exists(p)) return null;
        try {
            return SocketChannel.open(UnixDomainSocketAddress.of(p));
        } catch (IOException e) {
            return null; // a socket left behind by a process that died
        }
    }

    static void request(SocketChannel c, List<String> args) throws IOException {
        write(c, (String.join("\t", args) + "\n").getBytes(StandardCharsets.UTF_8));
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
        SocketChannel c = connect(r, pool);
        if (c == null) return -1;
        try (c) {
            request(c, args);
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

    /** Streams a send out of, or a receive into, the process serving {@code pool}; see {@link StreamCommands#call}. */
    public static int stream(PoolRegistry r, String pool, List<String> args, InputStream upload, OutputStream download,
                             PrintStream err) throws IOException {
        SocketChannel c = connect(r, pool);
        if (c == null) return -1;
        try (c) {
            return StreamCommands.call(c, args, upload, download, err);
        }
    }

    /**
     * Stops accepting, ends the connections still open (a send in progress fails with a message on its
     * client's side) and waits for them a little: the pool is closed next.
     */
    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(path);
        thread.interrupt();
        for (SocketChannel c : active) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing is all that is wanted
            }
        }
        try {
            if (slots.tryAcquire(MAX_CONNECTIONS, 10, TimeUnit.SECONDS)) slots.release(MAX_CONNECTIONS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
