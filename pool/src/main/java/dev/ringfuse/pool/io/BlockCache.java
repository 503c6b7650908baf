package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.BlockPointer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded cache of verified, decompressed file blocks (the pool's "ARC", simplified to one LRU list:
 * metadata needs none, the B-trees keep their decoded nodes). Keyed by what identifies a block's contents —
 * first copy's place, birth txg and checksum — so a place freed and written again is a different key.
 * Cached arrays are shared: callers must not modify them. Thread-safe.
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

    private final long capacity;
    private long bytes;
    private long hits, misses;
    private final LinkedHashMap<Id, byte[]> map = new LinkedHashMap<>(1024, 0.75f, true);

    public BlockCache(long capacity) {
        this.capacity = capacity;
    }

    /** Default size: a quarter of the heap, at most 1 GiB (the rest holds dirty data and tree nodes). */
    public static long defaultCapacity() {
        long prop = Long.getLong("pool.cache.bytes", -1);
        if (prop >= 0) return prop;
        return Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 4);
    }

    synchronized byte[] get(BlockPointer bp) {
        byte[] b = map.get(Id.of(bp));
        if (b == null) misses++;
        else hits++;
        return b;
    }

    synchronized void put(BlockPointer bp, byte[] data) {
        if (data.length > capacity / 8) return;
        byte[] old = map.put(Id.of(bp), data);
        if (old != null) bytes -= old.length;
        bytes += data.length;
        Iterator<Map.Entry<Id, byte[]>> it = map.entrySet().iterator();
        while (bytes > capacity && it.hasNext()) {
            bytes -= it.next().getValue().length;
            it.remove();
        }
    }

    synchronized boolean contains(BlockPointer bp) {
        return map.containsKey(Id.of(bp));
    }

    /** Drops every cached block (tests that must read from the devices, e.g. after damaging a mirror side). */
    public synchronized void clear() {
        map.clear();
        bytes = 0;
    }

    public synchronized long hits() { return hits; }
    public synchronized long misses() { return misses; }
    public synchronized long bytes() { return bytes; }
}
