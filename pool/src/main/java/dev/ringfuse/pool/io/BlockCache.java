package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.BlockPointer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded cache of verified, decompressed file blocks (the pool's "ARC", simplified to 2Q: metadata needs none,
 * the B-trees keep their decoded nodes). Keyed by what identifies a block's contents — first copy's place, birth
 * txg and checksum — so a place freed and written again is a different key. Cached arrays are shared: callers
 * must not modify them. Thread-safe.
 *
 * <p>Why 2Q and not one LRU list: a block read once (a sequential read, a rewrite's read before its write) went
 * to the LRU list and stayed there while 1 GiB of later blocks went by, so every such block outlived several
 * young collections and was copied by the collector on its way to the old generation; a 2 GiB sequential read
 * spent a quarter of the server's CPU in the collector and in the page faults of the regions it copied into
 * (pool/DESIGN.md, "Block cache"). A new block now enters a small FIFO ({@code fresh}); accesses while it is
 * there change nothing (a 4 KiB sequential reader touches a 128 KiB block 32 times in a row: that is one use);
 * when it leaves, its key is remembered for a while ({@code ghosts}), and a block asked for again after that
 * goes to the LRU list ({@code reused}), which holds the rest of the capacity. So a scan passes through 8 MiB
 * and dies young, and what is really used again is kept, as before, at the cost of one more miss. Why 8 MiB and
 * not 64 (session 14): every young collection copies what the FIFO holds; with 64 MiB a 2 GiB sequential read
 * cost 1.3x the server CPU and ran at 0.87x the speed (pool/DESIGN.md, "Block cache").
 */
public final class BlockCache {
    /** Identity of a block's contents. */
    record Id(int device, long offset, long birth, long sum) {
        static Id of(BlockPointer bp) {
            var d = bp.dvas()[0];
            return new Id(d.device(), d.offset(), bp.birth(), (long) LONG_LE.get(bp.checksum(), 0));
        }

        /** Reads a long without wrapping the array in a buffer (this runs on every file block read). */
        private static final java.lang.invoke.VarHandle LONG_LE =
                java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    }

    /** The FIFO of new blocks: at most a quarter of the capacity, and at most this (8 MiB unless set). */
    static final long FRESH_BYTES = Long.getLong("pool.cache.fresh.bytes", 8L << 20);

    private final long capacity;
    private final long freshCapacity;
    private long freshBytes, reusedBytes, ghostBytes;
    private long hits, misses;
    private final LinkedHashMap<Id, byte[]> fresh = new LinkedHashMap<>(1024, 0.75f, false);
    private final LinkedHashMap<Id, byte[]> reused = new LinkedHashMap<>(1024, 0.75f, true);
    /** Keys of blocks that left {@code fresh}, with their sizes: as many bytes' worth as half the capacity. */
    private final LinkedHashMap<Id, Integer> ghosts = new LinkedHashMap<>(1024, 0.75f, false);

    public BlockCache(long capacity) {
        this.capacity = capacity;
        this.freshCapacity = Math.min(capacity / 4, FRESH_BYTES);
    }

    /** Default size: a quarter of the heap, at most 1 GiB (the rest holds dirty data and tree nodes). */
    public static long defaultCapacity() {
        long prop = Long.getLong("pool.cache.bytes", -1);
        if (prop >= 0) return prop;
        return Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 4);
    }

    synchronized byte[] get(BlockPointer bp) {
        Id id = Id.of(bp);
        byte[] b = fresh.get(id);
        if (b == null) b = reused.get(id); // access order: this moves it to the young end
        if (b == null) misses++;
        else hits++;
        return b;
    }

    synchronized void put(BlockPointer bp, byte[] data) {
        if (data.length > capacity / 8) return;
        Id id = Id.of(bp);
        byte[] wasFresh = fresh.remove(id);
        if (wasFresh != null) freshBytes -= wasFresh.length;
        byte[] wasReused = reused.remove(id);
        if (wasReused != null) reusedBytes -= wasReused.length;
        Integer ghost = ghosts.remove(id);
        if (ghost != null) ghostBytes -= ghost;
        // used again after it left the FIFO (its ghost), or already on the LRU list: the LRU list
        if (ghost != null || wasReused != null) {
            reused.put(id, data);
            reusedBytes += data.length;
        } else {
            fresh.put(id, data);
            freshBytes += data.length;
        }
        trim();
    }

    private void trim() {
        Iterator<Map.Entry<Id, byte[]>> it = fresh.entrySet().iterator();
        while (freshBytes > freshCapacity && it.hasNext()) {
            Map.Entry<Id, byte[]> e = it.next();
            int len = e.getValue().length;
            freshBytes -= len;
            it.remove();
            ghosts.put(e.getKey(), len);
            ghostBytes += len;
        }
        it = reused.entrySet().iterator();
        while (freshBytes + reusedBytes > capacity && it.hasNext()) {
            reusedBytes -= it.next().getValue().length;
            it.remove();
        }
        Iterator<Map.Entry<Id, Integer>> g = ghosts.entrySet().iterator();
        while ((ghostBytes > capacity / 2 || ghosts.size() > MAX_GHOSTS) && g.hasNext()) {
            ghostBytes -= g.next().getValue();
            g.remove();
        }
    }

    /**
     * A commit wrote {@code now}, a new version of the record {@code old} held: the new bytes take the old
     * block's place in its list (the old one is freed or kept only by a snapshot). Nothing if {@code old} was not
     * cached: a record read and then rewritten stays cached across the commit, where before its next write read
     * it back from the device (a 4 KiB random overwrite + fsync paid a 128 KiB read every time); a stream of new
     * data is not cached by writing it. {@code data} holds at least {@code len} bytes, the block's logical size.
     */
    synchronized void carry(BlockPointer old, BlockPointer now, byte[] data, int len) {
        Id was = Id.of(old);
        byte[] inFresh = fresh.remove(was);
        byte[] inReused = inFresh == null ? reused.remove(was) : null;
        if (inFresh == null && inReused == null) return;
        if (inFresh != null) freshBytes -= inFresh.length;
        else reusedBytes -= inReused.length;
        if (len > capacity / 8) return; // as put: one block never takes more than an eighth
        byte[] b = data.length == len ? data : java.util.Arrays.copyOf(data, len);
        if (inFresh != null) {
            freshBytes += b.length;
            fresh.put(Id.of(now), b);
        } else {
            reusedBytes += b.length;
            reused.put(Id.of(now), b);
        }
        trim();
    }

    /** Bounds the ghosts' own memory (a key is about 80 bytes) when blocks are small. */
    private static final int MAX_GHOSTS = 1 << 18;

    synchronized boolean contains(BlockPointer bp) {
        Id id = Id.of(bp);
        return fresh.containsKey(id) || reused.containsKey(id);
    }

    /** Drops every cached block (tests that must read from the devices, e.g. after damaging a mirror side). */
    public synchronized void clear() {
        fresh.clear();
        reused.clear();
        ghosts.clear();
        freshBytes = reusedBytes = ghostBytes = 0;
    }

    public synchronized long hits() { return hits; }
    public synchronized long misses() { return misses; }
    public synchronized long bytes() { return freshBytes + reusedBytes; }
}
