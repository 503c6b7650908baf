package dev.ringfuse.pool.send;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * `ringfuse send`: writes a snapshot as a stream of tree records (DESIGN.md, "Send streams"). A full stream
 * carries every key of the snapshot's tree, data blocks as their logical bytes. An incremental stream from
 * snapshot A carries only what changed after A: leaves in subtrees born after A's txg (data blocks born
 * after it), and DELETE records for keys of A's tree that are gone, found by walking only the parts of A's
 * tree that B does not share. The snapshots are held (destroy refuses them) and their trees, which never
 * change, are read without the pool lock: a mounted pool goes on serving, and a slow reader of the stream
 * holds nothing but the send.
 */
public final class Sender {
    /** What was sent. */
    public record Result(long bytes, long records, long dataBytes) {}

    private static final int DATA_KEY = 80;

    private Sender() {}

    public static Result send(Pool pool, String to, String from, OutputStream out, LongConsumer progress) throws IOException {
        if (from != null && from.startsWith("@")) from = to.substring(0, to.indexOf('@')) + from;
        try (Snapshots.Hold held = Snapshots.hold(pool, from == null ? java.util.List.of(to) : java.util.List.of(to, from))) {
            Dataset toView = Snapshots.view(pool, to);
            Dataset fromView = from == null ? null : Snapshots.view(pool, from);
            if (fromView != null) {
                if (!from.substring(0, from.indexOf('@')).equals(to.substring(0, to.indexOf('@')))) {
                    throw new IllegalArgumentException("incremental source must be a snapshot of the same dataset");
                }
                if (fromView.head().creationTxg() >= toView.head().creationTxg()) {
                    throw new IllegalArgumentException("'" + from + "' is not older than '" + to + "'");
                }
            }
            DatasetHead th = toView.head();
            long fromTxg = fromView == null ? 0 : fromView.head().creationTxg();
            SendStream.Writer w = new SendStream.Writer(out);
            long estimate = fromView == null ? th.logicalBytes() : 0; // unknown for an incremental stream
            w.record(SendStream.HEADER, new SendStream.Header(fromView == null ? 0 : SendStream.FLAG_INCREMENTAL,
                    fromView == null ? 0 : Snapshots.guid(pool, from), fromTxg, Snapshots.guid(pool, to), th.creationTxg(),
                    estimate, to.substring(to.indexOf('@') + 1)).encode());
            long[] counts = new long[2];
            long treeId = toView.tree().treeId();
            Set<Key> shared = new HashSet<>();
            BTree.scanBornAfter(pool.io(), treeId, th.root(), fromTxg, (k, v) -> {
                if (k.type() == DATA_KEY) {
                    BlockPointer bp = BlockPointer.fromBytes(v);
                    if (bp.birth() <= fromTxg) return true; // unchanged block in a rewritten leaf
                    byte[] data = pool.io().read(bp);
                    w.record(SendStream.DATA, SendStream.keyed(k, data, 0, data.length));
                    counts[1] += data.length;
                    progress.accept(counts[1]);
                } else {
                    w.record(SendStream.SET, SendStream.keyed(k, v, 0, v.length));
                }
                counts[0]++;
                return true;
            }, bp -> shared.add(place(bp)));
            if (fromView != null) {
                BTree toTree = toView.tree();
                BTree.scanExcept(pool.io(), treeId, fromView.head().root(), bp -> shared.contains(place(bp)), (k, v) -> {
                    if (toTree.get(k) == null) {
                        w.record(SendStream.DELETE, SendStream.keyed(k, new byte[0], 0, 0));
                        counts[0]++;
                    }
                    return true;
                });
            }
            w.end();
            return new Result(w.bytes(), counts[0], counts[1]);
        }
    }

    private static Key place(BlockPointer bp) {
        return new Key(bp.dvas()[0].device(), 0, bp.dvas()[0].offset());
    }
}
