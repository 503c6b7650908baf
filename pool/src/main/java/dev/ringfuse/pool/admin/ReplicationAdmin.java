package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

/**
 * `ringfuse send` and `receive`, with a progress bar on standard error. A pool mounted by another process is
 * reached through its control socket ({@link StreamCommands}: that process does the I/O); otherwise the pool
 * is opened here.
 */
public final class ReplicationAdmin {
    private final PoolAdmin admin;
    private final PoolRegistry registry;
    private final PrintStream err;

    public ReplicationAdmin(PoolRegistry registry, PrintStream err) {
        this.registry = registry;
        this.admin = new PoolAdmin(registry, err, err);
        this.err = err;
    }

    private static String poolOf(String full) {
        int cut = full.length();
        for (char c : new char[] {'/', '@'}) if (full.indexOf(c) >= 0) cut = Math.min(cut, full.indexOf(c));
        return full.substring(0, cut);
    }

    /** Writes snapshot {@code snap} (changes since {@code from} if given) to {@code out}. */
    public void send(String snap, String from, OutputStream out) throws IOException {
        int rc = PoolControl.stream(registry, poolOf(snap), StreamCommands.sendArgs(snap, from), null, out, err);
        if (rc > 0) throw new IOException("send of '" + snap + "' failed (status " + rc + ")");
        if (rc == 0) return;
        try (Pool p = admin.open(poolOf(snap))) {
            Progress bar = new Progress(err, from != null ? 0 : Math.max(1, estimate(p, snap)));
            Sender.Result r = Sender.send(p, snap, from, out, bar::update);
            bar.done();
            err.println(sent(snap, from, r));
        }
    }

    static String sent(String snap, String from, Sender.Result r) {
        return String.format("sent '%s'%s: %d records, %s of data, %s stream", snap, from == null ? "" : " from " + from, r.records(),
                PoolAdmin.human(r.dataBytes()), PoolAdmin.human(r.bytes()));
    }

    static long estimate(Pool p, String snap) throws IOException {
        return dev.ringfuse.pool.txg.Snapshots.view(p, snap).head().logicalBytes();
    }

    /** Applies the stream on {@code in} to {@code target}. */
    public void receive(String target, InputStream in, boolean force) throws IOException {
        int rc = PoolControl.stream(registry, poolOf(target), StreamCommands.receiveArgs(target, force), in, null, err);
        if (rc > 0) throw new IOException("receive into '" + target + "' failed (status " + rc + ")");
        if (rc == 0) return;
        try (Pool p = admin.open(poolOf(target))) {
            Progress[] bar = {null};
            Receiver.Result r = Receiver.receive(p, target, in, force, total -> bar[0] = new Progress(err, Math.max(1, total)),
                    done -> bar[0].update(done));
            bar[0].done();
            err.println(received(r));
        }
    }

    static String received(Receiver.Result r) {
        return String.format("received '%s' (%s): %d records, %s stream", r.snapshot(), r.incremental() ? "incremental" : "full",
                r.records(), PoolAdmin.human(r.bytes()));
    }
}
