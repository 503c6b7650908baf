package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.tree.BTree;
import java.io.IOException;

/**
 * An open dataset: its object tree and head. Users (the filesystem) change the tree under
 * {@link Pool#lock()} and register a {@link SyncHook} that moves their dirty in-memory state (file blocks)
 * into the tree when a txg commits.
 */
public final class Dataset {
    /** Called under the pool lock at the start of each commit, before the tree is written. */
    public interface SyncHook {
        void sync(long txg) throws IOException;
    }

    final long id;
    final String name;
    DatasetHead head;
    final BTree tree;
    final Pool pool;
    volatile SyncHook hook;
    volatile Snapshots.ResetHook resetHook;
    /** A snapshot's view: any change is a bug (the filesystem answers EROFS before it gets here). */
    final boolean readOnly;
    /** Space counters of the live tree as of now (the head has them as of the last commit). */
    DatasetHead.Space space;
    /** A clone's origin txg (blocks born at or before it are charged to the origin), -1 until looked up. */
    private long originTxg = -1;
    /** Bytes of file data waiting in memory for the next commit (the filesystem's dirty blocks). */
    private volatile java.util.function.LongSupplier pending = () -> 0;

    Dataset(Pool pool, long id, String name, DatasetHead head, BTree tree) {
        this(pool, id, name, head, tree, false);
    }

    Dataset(Pool pool, long id, String name, DatasetHead head, BTree tree, boolean readOnly) {
        this.readOnly = readOnly;
        tree.freer(this::free);
        this.pool = pool;
        this.id = id;
        this.name = name;
        this.head = head;
        this.tree = tree;
        this.space = head.space();
        if (!readOnly) tree.onWrite(this::born);
    }

    public long id() { return id; }
    public String name() { return name; }
    public BTree tree() { return tree; }
    public Pool pool() { return pool; }
    public DatasetHead head() { return head; }

    public void syncHook(SyncHook h) { this.hook = h; }

    /** What the filesystem serving this dataset does around a rollback (see {@link Snapshots.ResetHook}). */
    public void resetHook(Snapshots.ResetHook r) { this.resetHook = r; }

    /** True while a filesystem serves this dataset (a mount: it installed a reset hook). */
    public boolean served() { return resetHook != null; }

    /** The serving filesystem's reset hook, or null (a receive into a mounted dataset invalidates through it). */
    public Snapshots.ResetHook resetHook() { return resetHook; }

    /** True for a snapshot's read-only view. */
    public boolean readOnly() { return readOnly; }

    /**
     * Releases a block this dataset no longer references. A block born after the newest snapshot is freed;
     * an older one is still referenced by that snapshot and goes on the dead list instead (DESIGN.md,
     * "Snapshots and dead lists").
     */
    public void free(BlockPointer bp) {
        if (readOnly) throw new IllegalStateException("snapshot " + name + " is read-only");
        try {
            boolean own = bp.birth() > originTxg();
            space = space.plus(bp, -1, own);
            if (bp.birth() > head.prevSnapshotTxg()) pool.io().allocator().free(bp.dvas());
            else {
                pool.directory().addDead(Snapshots.deadKey(pool.directory(), id, head), bp);
                if (own) space = space.withSnapshots(space.snapshots() + bp.allocated());
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Counts a block just written into this dataset's tree (file data; B-tree nodes are counted by the tree's
     * write hook). Every block the live tree gains goes through here and every one it loses through
     * {@link #free}, so the counters follow the tree exactly (DESIGN.md, "Space accounting").
     */
    public void born(BlockPointer bp) {
        if (readOnly) throw new IllegalStateException("snapshot " + name + " is read-only");
        space = space.plus(bp, 1, true);
    }

    /** The space counters as of now (uncommitted changes included). */
    public DatasetHead.Space space() { return space; }

    public long logicalBytes() { return space.logical(); }
    public long physicalBytes() { return space.referenced(); }

    /** The txg of a clone's origin snapshot; 0 for a filesystem that is no clone. Under the pool lock. */
    long originTxg() throws IOException {
        if (originTxg < 0) originTxg = SpaceWalk.originTxg(pool.directory(), head);
        return originTxg;
    }

    /** Tells the pool how many bytes of file data wait in memory (quota and reservation checks count them). */
    public void pendingBytes(java.util.function.LongSupplier s) { this.pending = s; }

    long pendingBytes() { return pending.getAsLong(); }

    /**
     * Fails with {@link QuotaException} (EDQUOT) when {@code bytes} more would pass a quota of this dataset or
     * an ancestor, with {@link dev.ringfuse.pool.io.NoSpaceException} (ENOSPC) when the pool, less the reserve
     * and other datasets' unused reservations, cannot hold them. Under the pool lock.
     */
    public void checkSpace(long bytes) throws IOException {
        pool.space().check(this, bytes);
    }

    /** Effective property (local, inherited, or default). */
    public String property(String prop) throws IOException {
        return pool.property(this, prop);
    }

    public Compression compression() throws IOException {
        return Compression.ofName(property("compression"));
    }

    public Checksum checksum() throws IOException {
        return Checksum.ofName(property("checksum"));
    }

    public int recordsize() throws IOException {
        return (int) Properties.parseSize(property("recordsize"));
    }

    BlockPointer commitTree(long txg) throws IOException {
        tree.checksum(checksum());
        return tree.commit(txg, Compression.LZ4);
    }
}
