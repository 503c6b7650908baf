package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.MosBlock;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.VerifyWindow;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * `pool verify`: walks every block from the uberblock (MOS, dataset directory, every dataset tree and its
 * data blocks, the space log), reads and checksums every copy, checks tree invariants, that no two live
 * blocks overlap, that every live block is allocated, that nothing allocated is unreferenced, and that
 * every dataset head's space counters match its trees (recomputed by {@link SpaceWalk}). Each block is read
 * once however many snapshots and clones share it: a subtree met again (by first-copy place) is not walked
 * again, and each copy that is read is the one the walk decodes (no second read to parse it).
 */
public final class PoolVerifier {
    /** What verification found. */
    public record Report(long blocks, long bytes, long datasets, List<String> errors) {
        public boolean clean() { return errors.isEmpty(); }
    }

    private final Pool pool;
    private final BlockIo io;
    private final List<Dva> live = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    /** Blocks seen so far by their first copy: snapshots and clones share blocks, each is counted once. */
    private final java.util.Map<Key, BlockPointer> seen = new java.util.HashMap<>();
    private long blocks, bytes;
    /** Receives the bytes read so far. */
    private final LongConsumer progress;
    /** File blocks' copies in flight: read and checked many at a time while the walk goes on. */
    private final VerifyWindow window;

    private PoolVerifier(Pool pool, LongConsumer progress) {
        this.pool = pool;
        this.io = pool.io();
        this.progress = progress;
        this.window = io.verifyWindow(this::checked);
    }

    /** Commits pending changes, then verifies; {@code progress} receives bytes read so far. */
    public static Report verify(Pool pool, LongConsumer progress) throws IOException {
        pool.lock().lock();
        pool.commitLock().lock(); // no commit's I/O in flight while the walk compares trees and space
        try {
            pool.commit();
            return new PoolVerifier(pool, progress == null ? x -> { } : progress).run();
        } finally {
            pool.commitLock().unlock();
            pool.lock().unlock();
        }
    }

    private Report run() throws IOException {
        try (window) {
            return walk();
        }
    }

    private Report walk() throws IOException {
        BlockPointer mos = pool.mosPointer();
        byte[] mosBytes = block(mos);
        if (mosBytes == null) return new Report(blocks, bytes, 0, List.copyOf(errors));
        List<Long> ids = new ArrayList<>();
        List<BlockPointer> dead = new ArrayList<>();
        tree(0, MosBlock.decode(mosBytes).directoryRoot(), (k, v) -> {
            if (k.type() == DatasetDir.HEAD) ids.add(k.obj());
            if (k.type() == DatasetDir.DEADLIST) dead.add(BlockPointer.fromBytes(v));
            return true;
        });
        for (long id : ids) {
            var head = pool.directory().head(id);
            BlockPointer root = head.root();
            if (root.isHole()) continue;
            tree(Snapshots.treeId(pool.directory(), id, head), root, (k, v) -> {
                if (k.type() == 80) {
                    try {
                        BlockPointer bp = BlockPointer.fromBytes(v);
                        if (bp.type() != BlockType.FILE_DATA) errors.add("dataset " + id + ": data key points at " + bp.type());
                        dataBlock(bp);
                    } catch (FormatException e) {
                        errors.add("dataset " + id + " " + k + ": " + e.getMessage());
                    }
                }
                return true;
            });
        }
        window.drain();
        for (BlockPointer bp : dead) {
            if (!bp.equals(seen.get(DatasetDir.deadKey(0, bp)))) errors.add("dead list block " + bp + " is referenced by no snapshot");
        }
        BlockPointer log = pool.spaceLogHead();
        while (!log.isHole()) {
            byte[] b = block(log);
            if (b == null) break;
            log = BlockPointer.decode(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN), 16);
        }
        overlapsAndLeaks();
        // each head's space counters against its trees and dead lists, from the nodes the walk kept
        errors.addAll(SpaceWalk.check(pool, bp -> {
            byte[] b = nodeBytes.get(DatasetDir.deadKey(0, bp));
            return b != null ? b : io.read(bp);
        }));
        nodeBytes.clear();
        return new Report(blocks, bytes, ids.size(), List.copyOf(errors));
    }

    /**
     * Walks the tree under {@code root}; a subtree already walked from another tree (a snapshot's or clone's,
     * sharing it) is not read again, only its key range is checked against the new parent's bounds.
     */
    private void tree(long treeId, BlockPointer root, BTree.Visitor leaves) {
        try {
            BTree.verifyOnce(treeId, root, new BTree.OnceWalk() {
                @Override public Key[] walked(BlockPointer bp) {
                    return alreadySeen(bp) ? ranges.getOrDefault(DatasetDir.deadKey(0, bp), NO_RANGE) : null;
                }
                @Override public byte[] read(BlockPointer bp) {
                    byte[] b = copies(bp);
                    keep(bp, b);
                    return b;
                }
                @Override public void done(BlockPointer bp, Key min, Key max) {
                    ranges.put(DatasetDir.deadKey(0, bp), new Key[] {min, max});
                }
                @Override public boolean leaf(Key key, byte[] value) throws IOException {
                    return leaves.visit(key, value);
                }
            });
        } catch (IOException e) {
            errors.add("tree " + treeId + ": " + e.getMessage());
        }
    }

    /**
     * Verified tree nodes kept for the space-counter check that follows the walk (it walks every head's tree,
     * and snapshots share most nodes): up to {@link #NODE_BYTES}; past that the check reads them again.
     */
    private final java.util.Map<Key, byte[]> nodeBytes = new java.util.HashMap<>();
    private static final long NODE_BYTES = 256L << 20;
    private long nodeBytesHeld;

    private void keep(BlockPointer bp, byte[] b) {
        if (b == null || bp.dvas()[0].isEmpty() || nodeBytesHeld + b.length > NODE_BYTES) return;
        if (nodeBytes.putIfAbsent(DatasetDir.deadKey(0, bp), b) == null) nodeBytesHeld += b.length;
    }

    /** Key ranges of the subtrees walked, by their root's first-copy place. */
    private final java.util.Map<Key, Key[]> ranges = new java.util.HashMap<>();
    /** The range of a subtree seen but unreadable (its error is reported once): nothing to check. */
    private static final Key[] NO_RANGE = {null, null};

    /** True when a snapshot or clone already brought {@code bp} (shared blocks are read and counted once). */
    private boolean alreadySeen(BlockPointer bp) {
        if (bp.dvas()[0].isEmpty()) return false;
        BlockPointer before = seen.putIfAbsent(DatasetDir.deadKey(0, bp), bp);
        if (before == null) return false;
        if (!before.equals(bp)) errors.add("two different block pointers name " + bp.dvas()[0] + ": " + before + " and " + bp);
        return true;
    }

    /** Queues every copy of a file block for the window. */
    private void dataBlock(BlockPointer bp) {
        if (alreadySeen(bp)) return;
        blocks++;
        for (Dva d : bp.dvas()) {
            if (d.isEmpty()) continue;
            live.add(d);
            window.add(single(bp, d));
        }
        if (bp.birth() > pool.txg()) errors.add(bp + ": born after the pool's txg " + pool.txg());
    }

    /** A file block's copy was read and checked ({@code why} null when it is good). */
    private void checked(BlockPointer single, String why) {
        Dva d = single.dvas()[0];
        if (why != null) errors.add("copy " + d.device() + ":" + d.offset() + " of " + single + ": " + why);
        bytes += d.asize();
        progress.accept(bytes);
    }

    /**
     * Reads every copy of {@code bp} separately and checks it; returns the logical bytes of a good copy, or null
     * (each read once: the walk decodes what this returns).
     */
    private byte[] block(BlockPointer bp) {
        if (alreadySeen(bp)) {
            errors.add(bp + " is reached twice (a loop in the space log?)");
            return null;
        }
        return copies(bp);
    }

    /** {@code bp} with {@code d} as its only copy: each copy is read and checked on its own. */
    private static BlockPointer single(BlockPointer bp, Dva d) {
        return new BlockPointer(new Dva[] {d, Dva.EMPTY, Dva.EMPTY}, bp.lsize(), bp.psize(), bp.type(), bp.compression(),
                bp.checksumType(), bp.level(), bp.birth(), bp.fill(), bp.checksum());
    }

    private byte[] copies(BlockPointer bp) {
        byte[] ok = null;
        blocks++;
        for (Dva d : bp.dvas()) {
            if (d.isEmpty()) continue;
            live.add(d);
            try {
                byte[] b = io.readUncached(single(bp, d));
                if (ok == null) ok = b;
            } catch (IOException e) {
                errors.add("copy " + d.device() + ":" + d.offset() + " of " + bp + ": " + e.getMessage());
            }
            bytes += d.asize();
            progress.accept(bytes);
        }
        if (bp.birth() > pool.txg()) errors.add(bp + ": born after the pool's txg " + pool.txg());
        return ok;
    }

    private void overlapsAndLeaks() {
        live.sort(Comparator.comparingInt(Dva::device).thenComparingLong(Dva::offset));
        Dva prev = null;
        long referenced = 0;
        for (Dva d : live) {
            referenced += d.asize();
            if (prev != null && prev.device() == d.device() && prev.offset() + prev.asize() > d.offset()) {
                errors.add("blocks overlap at " + d.device() + ":" + d.offset());
            }
            if (!io.allocator().map(d.device()).isAllocated(d.offset(), d.asize())) {
                errors.add("live block " + d.device() + ":" + d.offset() + " is marked free in the space map");
            }
            prev = d;
        }
        long allocated = io.allocator().capacity() - io.allocator().freeBytes() - io.allocator().deferredBytes();
        if (allocated != referenced) {
            errors.add("space accounting: " + allocated + " bytes allocated, " + referenced + " referenced ("
                    + (allocated - referenced) + " leaked)");
        }
    }
}
