package dev.ringfuse.pool.space;

import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.Layout;
import java.util.ArrayList;
import java.util.List;

/**
 * Pool-wide allocation over the devices' {@link SpaceMap}s. Records this txg's allocations and frees for the
 * space log, and defers frees: space freed in txg t becomes allocatable only once txg t+1 has committed
 * (DESIGN.md, "Deferred frees"). A reserve is kept back for removals and commits. Thread-safe.
 */
public final class Allocator {
    /** One alloc or free record of the space log. */
    public record Extent(int device, long offset, long length) {}

    private final SpaceMap[] maps;
    private final long reserve;
    private final List<Extent> allocated = new ArrayList<>();
    private final List<Extent> freed = new ArrayList<>();
    private List<Extent> deferred = new ArrayList<>();
    /** Frees of the txg whose I/O is in flight (between {@link #beginCommit} and {@link #committed}). */
    private List<Extent> committing;
    private int nextDevice;
    /** Scrubs and resilvers running: while above zero, released frees wait in {@link #held}. */
    private int holds;
    private final List<Extent> held = new ArrayList<>();

    public Allocator(SpaceMap[] maps) {
        this.maps = maps;
        long cap = 0;
        for (SpaceMap m : maps) cap += m.capacity();
        this.reserve = Math.max(4L << 20, cap / 32);
    }

    public SpaceMap map(int device) { return maps[device]; }
    public int devices() { return maps.length; }
    public long reserve() { return reserve; }

    public synchronized long freeBytes() {
        long f = 0;
        for (SpaceMap m : maps) f += m.freeBytes();
        return f;
    }

    public synchronized long capacity() {
        long c = 0;
        for (SpaceMap m : maps) c += m.capacity();
        return c;
    }

    /** Free bytes an ordinary write may still use (free minus the reserve, minus pending deferred frees' worth nothing). */
    public synchronized long availableBytes() {
        return Math.max(0, freeBytes() - reserve);
    }

    /**
     * Allocates {@code copies} copies of {@code len} bytes (a multiple of the sector); the second copy on
     * another device if there is one, else at least a quarter of the device away. {@code useReserve} lets
     * commits and removals dip into the reserve. Returns null when there is no room.
     */
    public synchronized Dva[] allocate(long len, int copies, boolean useReserve) {
        if (!useReserve && freeBytes() - len * copies < reserve) return null;
        Dva[] out = {Dva.EMPTY, Dva.EMPTY, Dva.EMPTY};
        int dev = nextDevice;
        nextDevice = (nextDevice + 1) % maps.length;
        for (int c = 0; c < copies; c++) {
            int d = (dev + c) % maps.length;
            SpaceMap m = maps[d];
            long at;
            if (c == 0) at = allocateAnywhere(d, len);
            else if (maps.length > 1) at = allocateAnywhere(d, len);
            else {
                long away = out[0].offset() + m.capacity() / 2;
                if (away >= m.end()) away = m.start() + (away - m.end());
                at = m.allocate(len, away);
            }
            if (at < 0) {
                for (int u = 0; u < c; u++) maps[out[u].device()].add(out[u].offset(), len);
                for (int u = 0; u < c; u++) allocated.removeLast();
                return null;
            }
            out[c] = new Dva(d, at, len);
            allocated.add(new Extent(d, at, len));
        }
        return out;
    }

    private long allocateAnywhere(int first, long len) {
        for (int i = 0; i < maps.length; i++) {
            int d = (first + i) % maps.length;
            long at = maps[d].allocate(len);
            if (at >= 0) return at;
        }
        return -1;
    }

    /** Frees a block's copies at the end of the deferral (recorded in this txg's space log). */
    public synchronized void free(Dva[] dvas) {
        for (Dva d : dvas) if (!d.isEmpty()) freed.add(new Extent(d.device(), d.offset(), d.asize()));
    }

    /** This txg's allocations and frees so far, for its space log block. */
    public synchronized List<Extent> allocatedThisTxg() { return List.copyOf(allocated); }
    public synchronized List<Extent> freedThisTxg() { return List.copyOf(freed); }

    /**
     * Closes txg t's records once its space log block is built: frees from now on belong to t+1 (the
     * filesystem goes on changing trees while t's blocks are written).
     */
    public synchronized void beginCommit() {
        committing = new ArrayList<>(freed);
        allocated.clear();
        freed.clear();
    }

    /** Called once txg t's uberblock is durable: frees of t-1 become allocatable; t's wait for t+1. */
    public synchronized void committed() {
        if (committing == null) beginCommit();
        if (holds > 0) held.addAll(deferred);
        else for (Extent e : deferred) maps[e.device()].add(e.offset(), e.length());
        deferred = committing;
        committing = null;
    }

    /**
     * Keeps every place freed from now on out of reuse until {@link #release}: a scrub or resilver walks a
     * committed tree without the pool lock, and the blocks of that tree must keep their bytes (and may be
     * rewritten with them) until the walk ends, even if the live datasets free them meanwhile. Frees are
     * recorded in the space log as usual: only their reuse waits (in memory).
     */
    public synchronized void hold() {
        holds++;
    }

    /** Ends one {@link #hold}; the last one makes the held places allocatable. */
    public synchronized void release() {
        if (holds == 0) throw new IllegalStateException("release without hold");
        if (--holds > 0) return;
        for (Extent e : held) maps[e.device()].add(e.offset(), e.length());
        held.clear();
    }

    /** True when every byte of {@code d}'s place is allocated (or held): a block may live there. */
    public synchronized boolean isAllocated(Dva d) {
        return d.device() < maps.length && maps[d.device()].isAllocated(d.offset(), d.asize());
    }

    /** After a failed commit (the pool is suspended): nothing more is released. */
    public synchronized void abortCommit() {
        if (committing != null) freed.addAll(committing);
        committing = null;
    }

    /**
     * Each device's allocated space as it will be once this txg is committed: in-memory allocations minus
     * frees still deferred and frees of this txg (which the durable state no longer holds).
     */
    public synchronized SpaceMap[] committedView() {
        SpaceMap[] view = new SpaceMap[maps.length];
        for (int i = 0; i < maps.length; i++) view[i] = maps[i].copy();
        for (Extent e : deferred) view[e.device()].add(e.offset(), e.length());
        for (Extent e : freed) view[e.device()].add(e.offset(), e.length());
        for (Extent e : held) view[e.device()].add(e.offset(), e.length());
        return view;
    }

    /** Replay of one space log record at import. */
    public synchronized void replay(int op, int device, long offset, long length) {
        if (device < 0 || device >= maps.length) throw new IllegalStateException("space log: bad device " + device);
        if (op == 1) maps[device].remove(offset, length);
        else if (op == 2) maps[device].add(offset, length);
        else throw new IllegalStateException("space log: bad op " + op);
    }

    /** True when the last committed txg freed anything: one more commit makes it allocatable. */
    public synchronized boolean deferring() {
        return !deferred.isEmpty();
    }

    /** Bytes sitting in deferred frees (counted as used until released). */
    public synchronized long deferredBytes() {
        long n = 0;
        for (Extent e : deferred) n += e.length();
        for (Extent e : freed) n += e.length();
        for (Extent e : held) n += e.length();
        if (committing != null) for (Extent e : committing) n += e.length();
        return n;
    }

    static long sectors(long len) { return Layout.roundUp(len); }
}
