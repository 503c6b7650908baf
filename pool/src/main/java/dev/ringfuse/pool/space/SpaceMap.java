package dev.ringfuse.pool.space;

import java.util.Map;
import java.util.TreeMap;

/**
 * The free extents of one device (offset → length), kept in memory and rebuilt at import from the space
 * log. Not thread-safe: the {@link Allocator} guards it.
 */
public final class SpaceMap {
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final long start;
    private final long end;
    private long freeBytes;
    private long cursor;

    /** A device whose allocatable area [start, end) is entirely free. */
    public SpaceMap(long start, long end) {
        this.start = start;
        this.end = end;
        free.put(start, end - start);
        freeBytes = end - start;
        cursor = start;
    }

    public long freeBytes() { return freeBytes; }

    /** An independent copy (space-log condensing works on one). */
    public SpaceMap copy() {
        SpaceMap m = new SpaceMap(start, end);
        m.free.clear();
        m.free.putAll(free);
        m.freeBytes = freeBytes;
        m.cursor = cursor;
        return m;
    }
    public long capacity() { return end - start; }
    public long start() { return start; }
    public long end() { return end; }

    /** First fit at or after {@code hint} (wrapping around); -1 when no extent is large enough. */
    public long allocate(long len, long hint) {
        long at = find(len, Math.max(hint, start), end);
        if (at < 0) at = find(len, start, Math.max(hint, start) + len);
        if (at < 0) return -1;
        remove(at, len);
        return at;
    }

    /** Next-fit allocation from a rolling cursor, so consecutive writes land next to each other. */
    public long allocate(long len) {
        long at = allocate(len, cursor);
        if (at >= 0) cursor = at + len;
        return at;
    }

    private long find(long len, long from, long to) {
        Map.Entry<Long, Long> e = free.floorEntry(from);
        if (e != null && e.getKey() + e.getValue() >= from + len) return from;
        for (Map.Entry<Long, Long> f : free.tailMap(from, false).entrySet()) {
            if (f.getKey() >= to) break;
            if (f.getValue() >= len) return f.getKey();
        }
        return -1;
    }

    /** Marks [at, at+len) allocated; it must be free. */
    public void remove(long at, long len) {
        Map.Entry<Long, Long> e = free.floorEntry(at);
        if (e == null || e.getKey() + e.getValue() < at + len) {
            throw new IllegalStateException("allocating space that is not free: " + at + "+" + len);
        }
        long eStart = e.getKey(), eLen = e.getValue();
        free.remove(eStart);
        if (at > eStart) free.put(eStart, at - eStart);
        long tail = eStart + eLen - (at + len);
        if (tail > 0) free.put(at + len, tail);
        freeBytes -= len;
    }

    /** Returns [at, at+len) to the free extents, merging with neighbours; it must be allocated. */
    public void add(long at, long len) {
        if (at < start || at + len > end) throw new IllegalStateException("freeing outside the device: " + at);
        Map.Entry<Long, Long> before = free.floorEntry(at);
        if (before != null && before.getKey() + before.getValue() > at) {
            throw new IllegalStateException("double free at " + at + "+" + len);
        }
        Map.Entry<Long, Long> after = free.ceilingEntry(at);
        if (after != null && after.getKey() < at + len) throw new IllegalStateException("double free at " + at + "+" + len);
        long s = at, l = len;
        if (before != null && before.getKey() + before.getValue() == at) {
            s = before.getKey();
            l += before.getValue();
            free.remove(before.getKey());
        }
        if (after != null && after.getKey() == at + len) {
            l += after.getValue();
            free.remove(after.getKey());
        }
        free.put(s, l);
        freeBytes += len;
    }

    /** True when every byte of [at, at+len) is allocated (not in a free extent). */
    public boolean isAllocated(long at, long len) {
        Map.Entry<Long, Long> e = free.floorEntry(at + len - 1);
        return e == null || e.getKey() + e.getValue() <= at;
    }

    /** Calls {@code visitor} with every allocated extent, in order. */
    public void forEachAllocated(java.util.function.BiConsumer<Long, Long> visitor) {
        long pos = start;
        for (Map.Entry<Long, Long> f : free.entrySet()) {
            if (f.getKey() > pos) visitor.accept(pos, f.getKey() - pos);
            pos = f.getKey() + f.getValue();
        }
        if (pos < end) visitor.accept(pos, end - pos);
    }
}
