package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

/** `ringfuse send` and `receive`, with a progress bar on standard error. */
public final class ReplicationAdmin {
    private final PoolAdmin admin;
    private final PoolRegistry registry;
    private final PrintStream err;

    public ReplicationAdmin(PoolRegistry registry, PrintStream err) {
        this.registry = registry;
        this.admin = new PoolAdmin(registry, err, err);
        this.err = err;
    }

    private Pool open(String full) throws IOException {
        String pool = full.substring(0, full.contains("/") ? full.indexOf('/') : full.indexOf('@') < 0 ? full.length() : full.indexOf('@'));
        if (java.nio.file.Files.exists(PoolControl.socket(registry, pool))) {
            try (var c = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(PoolControl.socket(registry, pool)))) {
                throw new IOException("pool '" + pool + "' is mounted by another process: unmount it to send or receive (not yet done through the mount)");
            } catch (IOException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("pool '")) throw e;
            }
        }
        return admin.open(pool);
    }

    /** Writes snapshot {@code snap} (changes since {@code from} if given) to {@code out}. */
    public void send(String snap, String from, OutputStream out) throws IOException {
        try (Pool p = open(snap)) {
            Progress bar = new Progress(err, Math.max(1, estimate(p, snap, from)));
            Sender.Result r = Sender.send(p, snap, from, out, bar::update);
            bar.done();
            err.printf("sent '%s'%s: %d records, %s of data, %s stream%n", snap, from == null ? "" : " from " + from, r.records(),
                    PoolAdmin.human(r.dataBytes()), PoolAdmin.human(r.bytes()));
        }
    }

    private static long estimate(Pool p, String snap, String from) throws IOException {
        if (from != null) return 0;
        return dev.ringfuse.pool.txg.Snapshots.view(p, snap).head().logicalBytes();
    }

    /** Applies the stream on {@code in} to {@code target}. */
    public void receive(String target, InputStream in, boolean force) throws IOException {
        try (Pool p = open(target)) {
            Progress[] bar = {null};
            Receiver.Result r = Receiver.receive(p, target, in, force, total -> bar[0] = new Progress(err, Math.max(1, total)),
                    done -> bar[0].update(done));
            bar[0].done();
            err.printf("received '%s' (%s): %d records, %s stream%n", r.snapshot(), r.incremental() ? "incremental" : "full",
                    r.records(), PoolAdmin.human(r.bytes()));
        }
    }
}
