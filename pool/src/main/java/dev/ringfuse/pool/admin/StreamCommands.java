package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * `send` and `receive` through the control socket of a mounted pool: the serving process does the pool's I/O.
 * After the request line (see {@link PoolControl}) a receive's client sends the stream's bytes and shuts its
 * side down; the server answers in frames, each a type byte, a length (u32, big-endian) and that many bytes:
 * {@code S} the stream's size estimate (u64, 0 when unknown), {@code D} stream bytes (send), {@code T} a
 * line for the user's standard error, then {@code X} the exit status (u32) or {@code E} an error message.
 *
 * <p>A send runs without the pool lock on held snapshots ({@link Sender}), so the mount and other commands go
 * on whatever the reader's speed. A receive spools the stream to a file beside the socket, checks it end to
 * end ({@link Receiver#check}), and only then applies it under the pool lock: a slow or broken client never
 * holds the lock, and a bad stream is refused before anything changes. The apply (block writes of the whole
 * stream) holds the pool lock like a commit does; the new dataset is not mounted, and it appears in one commit
 * with its snapshot or not at all.
 */
final class StreamCommands {
    private static final int FRAME = 1 << 18;

    private StreamCommands() {}

    static boolean handles(List<String> args) {
        return args.getFirst().equals("send") || args.getFirst().equals("receive");
    }

    /** Request arguments of a send: {@code send SNAPSHOT [FROM]}. */
    static List<String> sendArgs(String snap, String from) {
        return from == null ? List.of("send", snap) : List.of("send", snap, from);
    }

    /** Request arguments of a receive: {@code receive TARGET [-F]}. */
    static List<String> receiveArgs(String target, boolean force) {
        return force ? List.of("receive", target, "-F") : List.of("receive", target);
    }

    /** Server side: runs the command, answering in frames on {@code raw}. */
    static void serve(Pool pool, List<String> args, InputStream in, OutputStream raw, Path spoolDir) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw, FRAME + 5));
        try {
            if (args.getFirst().equals("send")) send(pool, args, out);
            else receive(pool, args, in, out, spoolDir);
            out.writeByte('X');
            out.writeInt(4);
            out.writeInt(0);
        } catch (IOException | RuntimeException e) {
            text(out, 'E', PoolControl.message(e)); // fails in turn if the client is gone: logged by PoolControl
        }
        out.flush();
    }

    private static void text(DataOutputStream out, int type, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeByte(type);
        out.writeInt(b.length);
        out.write(b);
    }

    private static void send(Pool pool, List<String> args, DataOutputStream out) throws IOException {
        if (args.size() < 2 || args.size() > 3) throw new IllegalArgumentException("send takes SNAPSHOT [FROM]");
        String snap = args.get(1), from = args.size() > 2 ? args.get(2) : null;
        out.writeByte('S');
        out.writeInt(8);
        out.writeLong(from == null ? ReplicationAdmin.estimate(pool, snap) : 0);
        OutputStream frames = new OutputStream() {
            private final byte[] buf = new byte[FRAME];
            private int n;

            @Override public void write(int b) throws IOException {
                if (n == buf.length) flush();
                buf[n++] = (byte) b;
            }

            @Override public void write(byte[] b, int off, int len) throws IOException {
                while (len > 0) {
                    if (n == buf.length) flush();
                    int k = Math.min(len, buf.length - n);
                    System.arraycopy(b, off, buf, n, k);
                    n += k;
                    off += k;
                    len -= k;
                }
            }

            @Override public void flush() throws IOException {
                if (n == 0) return;
                out.writeByte('D');
                out.writeInt(n);
                out.write(buf, 0, n);
                n = 0;
            }
        };
        Sender.Result r = Sender.send(pool, snap, from, frames, x -> { });
        frames.flush();
        text(out, 'T', ReplicationAdmin.sent(snap, from, r));
    }

    /**
     * Deletes the receive spools a server of {@code pool} left when it died mid-receive: only one server holds
     * a pool, and it calls this before it answers commands, so none of them belongs to a receive in progress.
     */
    static void removeStaleSpools(Path spoolDir, String pool) throws IOException {
        if (!Files.isDirectory(spoolDir)) return;
        // createTempFile puts digits between prefix and suffix; a glob would also match the spools of a pool
        // whose own name starts with this one's and ".recv-"
        java.util.regex.Pattern mine = java.util.regex.Pattern.compile(
                java.util.regex.Pattern.quote(pool + ".recv-") + "\\d+" + java.util.regex.Pattern.quote(".stream"));
        try (var stale = Files.newDirectoryStream(spoolDir, f -> mine.matcher(f.getFileName().toString()).matches())) {
            for (Path f : stale) Files.deleteIfExists(f);
        }
    }

    private static void receive(Pool pool, List<String> args, InputStream in, DataOutputStream out, Path spoolDir) throws IOException {
        if (args.size() < 2 || args.size() > 3 || args.size() == 3 && !args.get(2).equals("-F")) {
            throw new IllegalArgumentException("receive takes TARGET [-F]");
        }
        Path spool = Files.createTempFile(spoolDir, pool.name() + ".recv-", ".stream");
        try {
            Files.copy(in, spool, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            try (InputStream s = new BufferedInputStream(Files.newInputStream(spool), 1 << 20)) {
                Receiver.check(s);
            }
            try (InputStream s = new BufferedInputStream(Files.newInputStream(spool), 1 << 20)) {
                Receiver.Result r = Receiver.receive(pool, args.get(1), s, args.size() == 3, x -> { }, x -> { });
                text(out, 'T', ReplicationAdmin.received(r));
            }
        } finally {
            Files.deleteIfExists(spool);
        }
    }

    /**
     * Client side: sends the request, then {@code upload} (a receive's stream) if given, and reads the frames:
     * stream bytes to {@code download}, lines and a progress bar to {@code err}. Returns the exit status.
     */
    static int call(SocketChannel c, List<String> args, InputStream upload, OutputStream download, PrintStream err) throws IOException {
        PoolControl.request(c, args);
        if (upload != null) {
            OutputStream up = Channels.newOutputStream(c);
            byte[] buf = new byte[1 << 16];
            long sent = 0;
            Progress bar = new Progress(err, 0);
            for (int n; (n = upload.read(buf)) >= 0; ) {
                up.write(buf, 0, n);
                bar.update(sent += n);
            }
            bar.done(sent);
            c.shutdownOutput();
        }
        DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(c), FRAME + 5));
        Progress bar = null;
        long got = 0;
        byte[] buf = new byte[FRAME];
        while (true) {
            int type;
            try {
                type = in.readUnsignedByte();
            } catch (EOFException e) {
                throw new IOException("the process serving the pool closed the control connection");
            }
            if (type == 0) { // a refusal before any frame (PoolControl's text form)
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                for (int b; (b = in.read()) >= 0 && b != '\n'; ) line.write(b);
                String s = line.toString(StandardCharsets.UTF_8);
                throw new IOException(s.startsWith(PoolControl.ERROR.substring(1)) ? s.substring(PoolControl.ERROR.length() - 1) : s);
            }
            int len = in.readInt();
            if (len < 0 || len > FRAME) throw new IOException("control connection: bad frame length " + len);
            in.readFully(buf, 0, len);
            switch (type) {
                case 'S' -> bar = new Progress(err, java.nio.ByteBuffer.wrap(buf, 0, 8).getLong());
                case 'D' -> {
                    download.write(buf, 0, len);
                    if (bar != null) bar.update(got += len);
                }
                case 'T' -> {
                    if (bar != null) bar.done(got);
                    bar = null;
                    err.println(new String(buf, 0, len, StandardCharsets.UTF_8));
                }
                case 'X' -> {
                    if (download != null) download.flush();
                    return java.nio.ByteBuffer.wrap(buf, 0, 4).getInt();
                }
                case 'E' -> throw new IOException(new String(buf, 0, len, StandardCharsets.UTF_8));
                default -> throw new IOException("control connection: unknown frame type " + type);
            }
        }
    }
}
