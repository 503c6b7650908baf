package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes of one regular file: a sparse map from chunk index to a span of bytes, plus the file size.
 *
 * <p>Chunk {@code i} covers bytes {@code [i * chunkSize, (i + 1) * chunkSize)}. It holds at most one span:
 * an array covering a page-aligned part of the chunk, a whole number of 4 KiB pages long. Small files and
 * scattered writes cost pages, not chunks; an append grows only the last span (by doubling, so appends stay
 * amortised O(1)) and never copies more than one chunk. Everything no span covers is a hole and reads as
 * zeros; SEEK_HOLE/SEEK_DATA see holes at page granularity, except a gap between two written regions of
 * the same chunk, which the span fills with zeros. Bytes of a span beyond the file size are always zero, so
 * growing the size never exposes stale data.
 *
 * <p>Not thread-safe: the owning {@link FileNode} guards it with its content lock. {@link #size()} and
 * {@link #allocatedBytes()} are volatile so that getattr can read them without that lock.
 */
final class ChunkStore {
    /** Where chunk memory is accounted; reserve throws ENOSPC when full. */
    interface Space {
        void reserve(long bytes);
        void release(long bytes);

        Space UNLIMITED = new Space() {
            @Override public void reserve(long bytes) {}
            @Override public void release(long bytes) {}
        };
    }

    static final int PAGE = 4096;

    /** The bytes a chunk holds: {@code bytes} covers offsets {@code [start, start + bytes.length)} of the chunk. */
    private static final class Span {
        int start;
        byte[] bytes;

        Span(int start, byte[] bytes) {
            this.start = start;
            this.bytes = bytes;
        }

        int end() { return start + bytes.length; }
    }

    private final int shift;
    private final int chunkSize;
    private final long mask;
    private final Space space;
    private final TreeMap<Long, Span> chunks = new TreeMap<>();
    private volatile long size;
    private volatile long allocated;

    ChunkStore(int chunkSize, Space space) {
        if (Integer.bitCount(chunkSize) != 1 || chunkSize < PAGE) {
            throw new IllegalArgumentException("chunk size must be a power of two >= 4096: " + chunkSize);
        }
        this.chunkSize = chunkSize;
        this.shift = Integer.numberOfTrailingZeros(chunkSize);
        this.mask = chunkSize - 1L;
        this.space = space;
    }

    long size() { return size; }

    /** Bytes held in arrays, for st_blocks and statfs. */
    long allocatedBytes() { return allocated; }

    /** Copies up to {@code len} bytes at {@code off} into {@code dst}; returns how many (0 at or past EOF). */
    int read(long off, MemorySegment dst, int len) {
        long sz = size;
        if (off >= sz || len <= 0) return 0;
        int n = (int) Math.min(len, sz - off);
        int done = 0;
        while (done < n) {
            long pos = off + done;
            int in = (int) (pos & mask);
            int k = Math.min(n - done, chunkSize - in);
            Span c = chunks.get(pos >>> shift);
            int from = c == null ? in + k : Math.clamp(c.start, in, in + k);
            int to = c == null ? in + k : Math.clamp(c.end(), from, in + k);
            // zeros before the span, the span's bytes, zeros after it
            dst.asSlice(done, from - in).fill((byte) 0);
            if (from < to) MemorySegment.copy(c.bytes, from - c.start, dst, ValueLayout.JAVA_BYTE, done + from - in, to - from);
            dst.asSlice(done + to - in, in + k - to).fill((byte) 0);
            done += k;
        }
        return n;
    }

    /**
     * Writes all of {@code src} at {@code off}, extending the size. Returns the bytes written, fewer than
     * asked when space ran out part way (as write(2) does); throws ENOSPC if nothing could be written.
     */
    long write(long off, MemorySegment src) {
        long len = src.byteSize();
        if (len == 0) return 0;
        checkRange(off, len);
        long done = 0;
        try {
            while (done < len) {
                long pos = off + done;
                int in = (int) (pos & mask);
                int k = (int) Math.min(len - done, chunkSize - in);
                Span c = cover(pos >>> shift, in, in + k, true);
                MemorySegment.copy(src, ValueLayout.JAVA_BYTE, done, c.bytes, in - c.start, k);
                done += k;
                if (pos + k > size) size = pos + k;
            }
        } catch (FuseException e) {
            if (done == 0) throw e;
        }
        return done;
    }

    /** Sets the size; shrinking drops whole chunks and zeroes (and trims) the chunk that holds the new end. */
    void truncate(long newSize) {
        if (newSize < 0) throw new FuseException(Errno.EINVAL);
        if (newSize >= size) {
            size = newSize;
            return;
        }
        long firstDropped = (newSize >>> shift) + ((newSize & mask) != 0 ? 1 : 0);
        Map<Long, Span> tail = chunks.tailMap(firstDropped, true);
        for (Span c : tail.values()) account(-c.bytes.length);
        tail.clear();
        if ((newSize & mask) != 0) clearRange(newSize >>> shift, (int) (newSize & mask), chunkSize);
        size = newSize;
    }

    /** FALLOC_FL_PUNCH_HOLE: zeroes the range, giving back every whole page of it; keeps the size. */
    void punchHole(long off, long len) {
        checkRange(off, len);
        if (len == 0) return;
        long end = off + len;
        for (Long idx : new ArrayList<>(chunks.subMap(off >>> shift, true, (end - 1) >>> shift, true).keySet())) {
            long start = idx << shift;
            clearRange(idx, (int) (Math.max(off, start) - start), (int) Math.min(end - start, chunkSize));
        }
    }

    /**
     * fallocate(2) mode 0 or KEEP_SIZE: backs the range with zeroed memory. All space is reserved first,
     * so ENOSPC leaves the file unchanged.
     */
    void allocate(long off, long len, boolean keepSize) {
        checkRange(off, len);
        if (len == 0) return;
        long end = off + len;
        long first = off >>> shift, last = (end - 1) >>> shift;
        // chunk boundaries are page boundaries, so the pages of all chunks add up to the range rounded out
        long needed = pageCeil(end) - (off & -PAGE);
        for (Map.Entry<Long, Span> e : chunks.subMap(first, true, last, true).entrySet()) {
            Span c = e.getValue();
            int lo = pageFloor(inChunk(e.getKey(), off)), hi = pageCeil(inChunk(e.getKey(), end));
            needed += Math.max(hi, c.end()) - Math.min(lo, c.start) - c.bytes.length - (hi - lo);
        }
        space.reserve(needed);
        for (long idx = first; idx <= last; idx++) cover(idx, inChunk(idx, off), inChunk(idx, end), false);
        if (!keepSize && end > size) size = end;
    }

    /** FALLOC_FL_ZERO_RANGE: the range reads as zeros and is allocated. */
    void zeroRange(long off, long len, boolean keepSize) {
        punchHole(off, len);
        allocate(off, len, keepSize);
    }

    /** SEEK_DATA: the first offset at or after {@code off} inside a span, or -1 (ENXIO). */
    long seekData(long off) {
        long sz = size;
        if (off < 0 || off >= sz) return -1;
        for (Map.Entry<Long, Span> e : chunks.tailMap(off >>> shift, true).entrySet()) {
            long base = e.getKey() << shift;
            Span c = e.getValue();
            if (base + c.start >= sz) return -1;
            if (base + c.end() > off) return Math.max(off, base + c.start);
        }
        return -1;
    }

    /** SEEK_HOLE: the first offset at or after {@code off} outside every span (EOF counts as a hole), or -1. */
    long seekHole(long off) {
        long sz = size;
        if (off < 0 || off >= sz) return -1;
        long pos = off;
        while (pos < sz) {
            long base = (pos >>> shift) << shift;
            Span c = chunks.get(pos >>> shift);
            int in = (int) (pos - base);
            if (c == null || in < c.start || in >= c.end()) return pos;
            pos = base + c.end();
            if (c.end() < chunkSize) break;
        }
        return Math.min(pos, sz);
    }

    /** Frees every chunk; the size is left as it is. */
    void clear() {
        space.release(allocated);
        allocated = 0;
        chunks.clear();
    }

    /**
     * Makes chunk {@code idx}'s span cover {@code [from, to)} (chunk offsets) and returns it. For writes the
     * space is reserved here and a span growing at its end doubles, so that appends copy amortised O(1)
     * bytes; for fallocate the caller reserved exactly the pages, so the span grows exactly.
     */
    private Span cover(long idx, int from, int to, boolean forWrite) {
        Span c = chunks.get(idx);
        int lo = pageFloor(from), hi = pageCeil(to);
        if (c == null) {
            if (forWrite) space.reserve(hi - lo);
            c = new Span(lo, new byte[hi - lo]);
            chunks.put(idx, c);
            account(hi - lo);
            return c;
        }
        if (c.start <= from && to <= c.end()) return c;
        int nlo = Math.min(lo, c.start), nhi = Math.max(hi, c.end());
        if (forWrite && nhi > c.end()) nhi = Math.max(nhi, Math.min(chunkSize, nlo + 2 * c.bytes.length));
        int grown = (nhi - nlo) - c.bytes.length;
        if (forWrite) space.reserve(grown);
        byte[] n = new byte[nhi - nlo];
        System.arraycopy(c.bytes, 0, n, c.start - nlo, c.bytes.length);
        c.start = nlo;
        c.bytes = n;
        account(grown);
        return c;
    }

    /**
     * Zeroes chunk offsets {@code [from, to)} and gives back the pages of the span that become empty at its
     * ends; a span left with nothing is dropped.
     */
    private void clearRange(long idx, int from, int to) {
        Span c = chunks.get(idx);
        if (c == null) return;
        from = Math.max(from, c.start);
        to = Math.min(to, c.end());
        if (from >= to) return;
        int keepFrom = from <= c.start ? Math.min(pageFloor(to), c.end()) : c.start;
        int keepTo = to >= c.end() ? Math.max(pageCeil(from), c.start) : c.end();
        if (keepFrom >= keepTo) {
            chunks.remove(idx);
            account(-c.bytes.length);
            return;
        }
        Arrays.fill(c.bytes, from - c.start, to - c.start, (byte) 0);
        if (keepFrom != c.start || keepTo != c.end()) {
            account((keepTo - keepFrom) - c.bytes.length);
            c.bytes = Arrays.copyOfRange(c.bytes, keepFrom - c.start, keepTo - c.start);
            c.start = keepFrom;
        }
    }

    /** Records a change of held bytes; growth was reserved by the caller, shrinking is given back here. */
    private void account(long delta) {
        allocated += delta;
        if (delta < 0) space.release(-delta);
    }

    /** {@code pos} as an offset in chunk {@code idx}, clamped to the chunk. */
    private int inChunk(long idx, long pos) {
        return (int) Math.max(0, Math.min(chunkSize, pos - (idx << shift)));
    }

    private static int pageFloor(int n) {
        return n & -PAGE;
    }

    private static int pageCeil(int n) {
        return (n + PAGE - 1) & -PAGE;
    }

    private static long pageCeil(long n) {
        if (n > Long.MAX_VALUE - PAGE) throw new FuseException(Errno.EFBIG);
        return (n + PAGE - 1) & -PAGE;
    }

    private static void checkRange(long off, long len) {
        if (off < 0 || len < 0) throw new FuseException(Errno.EINVAL);
        if (off + len < 0) throw new FuseException(Errno.EFBIG);
    }

    /** Chunk indexes that hold spans, for tests. */
    List<Long> chunkIndexes() {
        return List.copyOf(chunks.keySet());
    }
}
