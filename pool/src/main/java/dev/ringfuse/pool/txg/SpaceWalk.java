package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.tree.BTree;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The space counters of a dataset head computed from scratch, by walking its committed tree and its dead
 * lists (DESIGN.md, "Space accounting"). Verification compares them with the counters the heads carry; an
 * import fills them in for heads written before they existed. Callers hold the pool lock.
 */
final class SpaceWalk {
    /** The key type of file data block pointers in a dataset tree. */
    private static final int DATA = 80;

    private SpaceWalk() {}

    /**
     * The txg of the origin snapshot of the clone that {@code h} is (or whose snapshot it is); 0 for a lineage
     * that is no clone. Blocks born at or before it are the origin's: they count in its filesystem's figures.
     */
    static long originTxg(DatasetDir dir, DatasetHead h) throws IOException {
        DatasetHead fs = h;
        if (h.kind() == DatasetHead.SNAPSHOT) {
            fs = dir.head(h.parent());
            if (fs == null) throw new FormatException("snapshot '" + h.name() + "': its filesystem " + h.parent() + " is missing");
        }
        if (fs.origin() == 0) return 0;
        DatasetHead o = dir.head(fs.origin());
        if (o == null) throw new FormatException("dataset '" + fs.name() + "': origin " + fs.origin() + " is missing");
        return o.creationTxg();
    }

    /** The counters head {@code id} should carry, from its committed tree and (a filesystem's) dead lists. */
    static DatasetHead.Space compute(Pool pool, long id) throws IOException {
        return compute(pool, id, pool.io()::read);
    }

    /** As {@link #compute(Pool, long)}, the tree's nodes from {@code nodes} (verification's already read ones). */
    static DatasetHead.Space compute(Pool pool, long id, BTree.NodeSource nodes) throws IOException {
        DatasetDir dir = pool.directory();
        DatasetHead h = dir.head(id);
        long origin = originTxg(dir, h);
        DatasetHead.Space[] acc = {DatasetHead.Space.ZERO};
        if (!h.root().isHole()) {
            BTree.walk(Snapshots.treeId(dir, id, h), h.root(), bp -> {
                byte[] b = nodes.read(bp);
                if (b == null) throw new IOException("tree node " + bp + " unreadable");
                acc[0] = acc[0].plus(bp, 1, bp.birth() > origin);
                return b;
            }, (k, v) -> {
                if (k.type() == DATA) {
                    BlockPointer bp = BlockPointer.fromBytes(v);
                    acc[0] = acc[0].plus(bp, 1, bp.birth() > origin);
                }
                return true;
            });
        }
        if (h.kind() != DatasetHead.FILESYSTEM) return acc[0];
        // every interval of this filesystem: the one each of its snapshots opened, and (a clone's) before its first
        List<Long> owners = new ArrayList<>(dir.snapshots(id).values());
        owners.add(id);
        long snaps = 0;
        for (long o : owners) for (BlockPointer bp : dir.dead(o)) if (bp.birth() > origin) snaps += bp.allocated();
        return acc[0].withSnapshots(snaps);
    }

    /** Fills in the counters of heads that lack them (a pool written before they existed); true if any did. */
    static boolean upgrade(Pool pool) throws IOException {
        DatasetDir dir = pool.directory();
        boolean any = false;
        for (long id : dir.allHeads()) {
            DatasetHead h = dir.head(id);
            if (h.counted()) continue;
            dir.putHead(id, h.withSpace(compute(pool, id)));
            any = true;
        }
        return any;
    }

    /**
     * Errors for every head whose counters differ from its trees (verification; the pool is committed); tree
     * nodes come from {@code nodes}, so that verification, which has just read them, need not read them again.
     */
    static List<String> check(Pool pool, BTree.NodeSource nodes) {
        List<String> errors = new ArrayList<>();
        try {
            DatasetDir dir = pool.directory();
            for (long id : dir.allHeads()) {
                DatasetHead h = dir.head(id);
                try {
                    DatasetHead.Space want = compute(pool, id, nodes);
                    if (!h.counted()) errors.add("dataset " + id + " ('" + h.name() + "'): no space counters");
                    else if (!want.equals(h.space())) {
                        errors.add("dataset " + id + " ('" + h.name() + "'): space counters " + h.space() + " but its trees hold " + want);
                    }
                } catch (IOException e) {
                    errors.add("dataset " + id + ": space counters not checkable: " + e.getMessage());
                }
            }
        } catch (IOException e) {
            errors.add("space counters: " + e.getMessage());
        }
        return errors;
    }
}
