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
    long logicalBytes;
    long physicalBytes;

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
        this.logicalBytes = head.logicalBytes();
        this.physicalBytes = head.physicalBytes();
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
        if (bp.birth() > head.prevSnapshotTxg()) pool.io().allocator().free(bp.dvas());
        else {
            try {
                pool.directory().addDead(Snapshots.deadKey(pool.directory(), id, head), bp);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** Data accounting: the filesystem reports data blocks it adds (+) and frees (-). */
    public void account(long logical, long physical) {
        logicalBytes += logical;
        physicalBytes += physical;
    }

    public long logicalBytes() { return logicalBytes; }
    public long physicalBytes() { return physicalBytes; }

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
