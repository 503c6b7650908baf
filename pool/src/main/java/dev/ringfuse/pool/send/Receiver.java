package dev.ringfuse.pool.send;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * `ringfuse receive`: applies a send stream to a dataset. A full stream creates a new dataset; an
 * incremental one needs the target's newest snapshot to be the stream's source (by guid) and the target
 * unchanged since (or -F: rolled back to it first). Records change the tree in memory only; data blocks go
 * to free space. Nothing is committed before the END record has verified the whole stream: then the
 * snapshot is taken (one commit). A stream that fails (truncated, corrupted, inconsistent) is undone in
 * memory (the new dataset destroyed, or the target rolled back to its snapshot) and the target is exactly as
 * before. Into a mounted dataset, the kernel's caches are dropped afterwards through the mount's reset hook,
 * outside the pool lock, as a rollback does.
 */
public final class Receiver {
    /** What was received. */
    public record Result(String snapshot, long bytes, long records, boolean incremental) {}

    private static final int DATA_KEY = 80;
    /** Queued block writes are sent to the devices every this many bytes (they are not part of any committed state yet). */
    private static final long SUBMIT_EVERY = 32L << 20;

    private Receiver() {}

    /**
     * Receives into {@code target}; {@code total} gets the stream's size estimate (0 if unknown) once the
     * header is read, {@code progress} the bytes read so far.
     */
    public static Result receive(Pool pool, String target, InputStream in, boolean force, LongConsumer total, LongConsumer progress)
            throws IOException {
        SendStream.Reader r = new SendStream.Reader(in);
        SendStream.Record first = r.next();
        if (first.type() != SendStream.HEADER) throw new SendStream.StreamException("send stream does not start with a header");
        SendStream.Header h = SendStream.Header.decode(first.value());
        total.accept(h.estimate());
        Snapshots.ResetHook hook = null;
        boolean stale = false; // the kernel's caches of a mounted target are stale: -F rolled it back, or the stream went in
        long records = 0;
        pool.lock().lock();
        try {
            pool.checkUsable();
            String undo;
            if (!h.incremental()) {
                if (pool.lookup(target) != 0) throw new IOException("dataset '" + target + "' exists: a full stream is received into a new dataset");
                pool.createDataset(target, Map.of());
                undo = null;
            } else {
                if (pool.lookup(target) == 0) throw new IOException("dataset '" + target + "' does not exist (an incremental stream needs its source snapshot there)");
                Snapshots.Info newest = Snapshots.newest(pool, target);
                if (newest == null || Snapshots.guid(pool, newest.name()) != h.fromGuid()) {
                    throw new IOException("the newest snapshot of '" + target + "' is not the stream's source (guid "
                            + Long.toHexString(h.fromGuid()) + "): send an incremental stream from the target's newest snapshot");
                }
                // mounted: what the kernel may cache now (every inode it holds, every name in those directories) is
                // dropped once the stream is in, after the pool lock is released (as a rollback does)
                hook = pool.dataset(target).resetHook();
                if (hook != null) hook.beforeReset();
                if (Snapshots.changedSinceNewest(pool, target)) {
                    if (!force) throw new IOException("'" + target + "' changed since " + newest.name() + " (receive -F rolls it back first)");
                    // a mounted target's caches are dropped with the receive's (never under the pool lock)
                    Snapshots.rollback(pool, newest.name(), true, hook == null);
                    stale = true;
                }
                undo = newest.name();
            }
            Dataset ds = pool.dataset(target);
            String snap = target + "@" + h.snapshot();
            try {
                long sinceSubmit = 0;
                while (true) {
                    SendStream.Record rec = r.next();
                    progress.accept(r.bytes());
                    if (rec.type() == SendStream.END) break;
                    if (rec.type() == SendStream.HEADER) throw new SendStream.StreamException("send stream has a second header");
                    apply(pool, ds, rec);
                    records++;
                    if (rec.type() == SendStream.DATA && (sinceSubmit += rec.value().length) > SUBMIT_EVERY) {
                        pool.io().submit();
                        sinceSubmit = 0;
                    }
                }
                // the received tree and its snapshot are written by one commit: a crash keeps both or neither
                pool.dirty();
                Snapshots.create(pool, snap, h.toGuid());
                stale = true;
            } catch (IOException | RuntimeException e) {
                if (pool.suspended() == null) {
                    if (undo == null) pool.destroyDataset(target, null);
                    else Snapshots.rollback(pool, undo, false, false); // no request saw the changes: nothing to invalidate
                    pool.commit();
                }
                throw e;
            }
        } finally {
            try {
                if (hook != null && stale) hook.afterReset(); // the names after; inode numbers the kernel holds stay unused
            } finally {
                pool.lock().unlock();
                if (hook != null && stale) hook.notifyKernel(); // without the pool lock, as a rollback does
            }
        }
        return new Result(target + "@" + h.snapshot(), r.bytes(), records, h.incremental());
    }


    /** A stream checked end to end by {@link #check}. */
    public record Checked(String snapshot, boolean incremental, long estimate, long records, long bytes) {}

    /**
     * Reads a whole stream and checks it (every record's CRC32C, the END digest and count) without applying
     * anything: a receive through a mounted pool checks its spooled copy first, so a bad stream is refused
     * before the target is touched (not even -F's rollback happens).
     */
    public static Checked check(InputStream in) throws IOException {
        SendStream.Reader r = new SendStream.Reader(in);
        SendStream.Record first = r.next();
        if (first.type() != SendStream.HEADER) throw new SendStream.StreamException("send stream does not start with a header");
        SendStream.Header h = SendStream.Header.decode(first.value());
        long records = 0;
        for (SendStream.Record rec = r.next(); rec.type() != SendStream.END; rec = r.next()) {
            if (rec.type() == SendStream.HEADER) throw new SendStream.StreamException("send stream has a second header");
            records++;
        }
        return new Checked(h.snapshot(), h.incremental(), h.estimate(), records, r.bytes());
    }

    private static void apply(Pool pool, Dataset ds, SendStream.Record rec) throws IOException {
        Key k = rec.key();
        byte[] old = ds.tree().get(k);
        switch (rec.type()) {
            case SendStream.SET -> {
                if (k.type() == DATA_KEY) throw new SendStream.StreamException("send stream: a SET record for a data key");
                ds.tree().put(k, rec.value());
            }
            case SendStream.DATA -> {
                if (k.type() != DATA_KEY) throw new SendStream.StreamException("send stream: a DATA record for key " + k);
                if (old != null) release(ds, BlockPointer.fromBytes(old));
                byte[] data = rec.value();
                BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, ds.compression(), ds.checksum(), 0,
                        pool.txg() + 1, 1, false);
                ds.tree().put(k, bp.toBytes());
                ds.born(bp);
            }
            case SendStream.DELETE -> {
                if (old == null) throw new SendStream.StreamException("send stream deletes " + k + ", which the target does not have");
                if (k.type() == DATA_KEY) release(ds, BlockPointer.fromBytes(old));
                ds.tree().delete(k);
            }
            default -> throw new SendStream.StreamException("send stream: unknown record type " + rec.type());
        }
    }

    private static void release(Dataset ds, BlockPointer bp) {
        ds.free(bp); // the dataset counts it
    }
}
