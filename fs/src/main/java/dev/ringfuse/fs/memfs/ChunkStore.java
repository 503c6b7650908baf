package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The bytes of one regular file: a sparse map from chunk index to a chunk of off-heap memory, plus the size.
 *
 * <p>Chunk {@code i} covers bytes {@code [i * chunkSize, (i + 1) * chunkSize)} and owns a slot of
 * {@link ChunkMemory}. Two bitmaps per chunk, one bit per 4 KiB page, say what tmpfs would say of its pages:
 * <ul>
 *   <li>{@code present}: the page is allocated (written, or reserved by fallocate) and counts in st_blocks and
 *       against the capacity;</li>
 *   <li>{@code data}: the page was written (tmpfs: the page is up to date). SEEK_DATA/SEEK_HOLE follow these
 *       bits, so a fallocated page that was never written is a hole, as on tmpfs.</li>
 * </ul>
 * A page that is not present reads as zeros and its memory is zero (never touched, or given back with
 * MADV_DONTNEED when punched or truncated away); a chunk with no present page gives its slot back. Bytes of a
 * present page beyond the file size are zero, so growing the size never exposes old data.
 *
 * <p>Not thread-safe: the owning {@link FileNode} guards it with its content lock (reads shared, everything
 * else exclusive), which is also what makes freeing chunk memory safe: no read is copying out of a chunk
 * while it is freed. {@link #size()} and {@link #allocatedBytes()} are volatile for getattr without the lock.
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
    private static final int PAGE_SHIFT = 12;
    /** One bit per page in a long. */
    static final int MAX_CHUNK = 64 * PAGE;

    private static final class Chunk {
        final ChunkMemory.Slot slot;
        long present;
        long data;

        Chunk(ChunkMemory.Slot slot) {
            this.slot = slot;
        }
    }

    private final ChunkMemory memory;
    private final int shift;
    private final int chunkSize;
    private final long mask;
    private final Space space;
    private final TreeMap<Long, Chunk> chunks = new TreeMap<>();
    private volatile long size;
    private volatile long allocated;

    ChunkStore(ChunkMemory memory, Space space) {
        int cs = memory.chunkSize();
        if (Integer.bitCount(cs) != 1 || cs < PAGE || cs > MAX_CHUNK) {
            throw new IllegalArgumentException("chunk size must be a power of two in [4096, 262144]: " + cs);
        }
        this.memory = memory;
        this.chunkSize = cs;
        this.shift = Integer.numberOfTrailingZeros(cs);
        this.mask = cs - 1L;
        this.space = space;
    }

    /** A store with chunk memory of its own (tests). */
    ChunkStore(int chunkSize, Space space) {
        this(new ChunkMemory(chunkSize), space);
    }

    long size() { return size; }

    /** Bytes of allocated pages, for st_blocks and statfs. */
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
            Chunk c = chunks.get(pos >>> shift);
            if (c == null) {
                dst.asSlice(done, k).fill((byte) 0);
            } else {
                // runs of present pages are copied, the rest is zeros (without touching the slot's memory)
                int at = in, to = in + k;
                while (at < to) {
                    int p = at >>> PAGE_SHIFT;
                    boolean has = bit(c.present, p);
                    int q = p + 1;
                    while (q << PAGE_SHIFT < to && bit(c.present, q) == has) q++;
                    int end = Math.min(to, q << PAGE_SHIFT);
                    if (has) MemorySegment.copy(c.slot.memory(), at, dst, done + at - in, end - at);
                    else dst.asSlice(done + at - in, end - at).fill((byte) 0);
                    at = end;
                }
            }
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
                long idx = pos >>> shift;
                long pages = pages(in, in + k);
                Chunk c = chunks.get(idx);
                long missing = c == null ? pages : pages & ~c.present;
                space.reserve((long) Long.bitCount(missing) * PAGE);
                if (c == null) {
                    c = newChunk(idx, missing);
                }
                MemorySegment.copy(src, done, c.slot.memory(), in, k);
                c.present |= pages;
                c.data |= pages;
                allocated += (long) Long.bitCount(missing) * PAGE;
                done += k;
                if (pos + k > size) size = pos + k;
            }
        } catch (FuseException e) {
            if (done == 0) throw e;
        }
        return done;
    }

    /** Sets the size; shrinking frees every page wholly past the new end and zeroes the rest of the last one. */
    void truncate(long newSize) {
        if (newSize < 0) throw new FuseException(Errno.EINVAL);
        if (newSize >= size) {
            size = newSize;
            return;
        }
        long firstDropped = (newSize >>> shift) + ((newSize & mask) != 0 ? 1 : 0);
        NavigableMap<Long, Chunk> tail = chunks.tailMap(firstDropped, true);
        for (Map.Entry<Long, Chunk> e; (e = tail.pollFirstEntry()) != null; ) release(e.getValue(), true);
        if ((newSize & mask) != 0) clearRange(newSize >>> shift, (int) (newSize & mask), chunkSize);
        size = newSize;
    }

    /** FALLOC_FL_PUNCH_HOLE: zeroes the range, freeing every whole page of it; keeps the size. */
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
     * fallocate(2) mode 0 or KEEP_SIZE: allocates the pages of the range (they read as zeros and stay holes for
     * SEEK_DATA until written, as on tmpfs). All space is reserved first, so ENOSPC leaves the file unchanged.
     */
    void allocate(long off, long len, boolean keepSize) {
        checkRange(off, len);
        if (len == 0) return;
        long end = off + len;
        pageCeil(end);
        long first = off >>> shift, last = (end - 1) >>> shift;
        long needed = 0;
        for (long idx = first; idx <= last; idx++) {
            Chunk c = chunks.get(idx);
            long pages = pages(inChunk(idx, off), inChunk(idx, end));
            needed += (long) Long.bitCount(c == null ? pages : pages & ~c.present) * PAGE;
        }
        space.reserve(needed);
        for (long idx = first; idx <= last; idx++) {
            long pages = pages(inChunk(idx, off), inChunk(idx, end));
            Chunk c = chunks.get(idx);
            if (c == null) c = newChunk(idx, pages);
            allocated += (long) Long.bitCount(pages & ~c.present) * PAGE;
            c.present |= pages;
        }
        if (!keepSize && end > size) size = end;
    }

    /** FALLOC_FL_ZERO_RANGE: the range reads as zeros and is allocated. */
    void zeroRange(long off, long len, boolean keepSize) {
        punchHole(off, len);
        allocate(off, len, keepSize);
    }

    /** SEEK_DATA: the first offset at or after {@code off} in a written page, or -1 (ENXIO). */
    long seekData(long off) {
        long sz = size;
        if (off < 0 || off >= sz) return -1;
        for (Map.Entry<Long, Chunk> e : chunks.tailMap(off >>> shift, true).entrySet()) {
            long base = e.getKey() << shift;
            if (base >= sz) return -1;
            long bits = e.getValue().data;
            if (base < off) bits &= -1L << ((off - base) >>> PAGE_SHIFT);
            if (bits == 0) continue;
            long at = Math.max(off, base + ((long) Long.numberOfTrailingZeros(bits) << PAGE_SHIFT));
            return at < sz ? at : -1;
        }
        return -1;
    }

    /** SEEK_HOLE: the first offset at or after {@code off} not in a written page (EOF counts as a hole), or -1. */
    long seekHole(long off) {
        long sz = size;
        if (off < 0 || off >= sz) return -1;
        long pos = off;
        while (pos < sz) {
            long base = (pos >>> shift) << shift;
            Chunk c = chunks.get(pos >>> shift);
            if (c == null) return pos;
            long holes = ~c.data & (-1L << ((pos - base) >>> PAGE_SHIFT)) & pages(0, chunkSize);
            if (holes != 0) return Math.min(sz, Math.max(pos, base + ((long) Long.numberOfTrailingZeros(holes) << PAGE_SHIFT)));
            pos = base + chunkSize;
        }
        return sz;
    }

    /** Frees every chunk; the size is left as it is. */
    void clear() {
        for (Map.Entry<Long, Chunk> e; (e = chunks.pollFirstEntry()) != null; ) release(e.getValue(), true);
    }

    /** A chunk for {@code pages}, which the caller reserved and marks present at once. */
    private Chunk newChunk(long idx, long pages) {
        ChunkMemory.Slot slot;
        try {
            slot = memory.allocate(pages);
        } catch (RuntimeException | OutOfMemoryError e) {
            space.release((long) Long.bitCount(pages) * PAGE);
            throw new FuseException(Errno.ENOMEM);
        }
        Chunk c = new Chunk(slot);
        chunks.put(idx, c);
        return c;
    }

    /**
     * Gives a chunk's memory and its accounted pages back. The caller has removed it from the map already: if
     * this fails part way, no chunk of this file is left pointing at a slot another file may be given.
     * {@code warm}: the slot may stay resident a moment for reuse (a file deleted or truncated, which is
     * usually followed by writing another); a punched hole or zeroed range gives its memory back at once, as
     * tmpfs does, since that is what the caller asked for.
     */
    private void release(Chunk c, boolean warm) {
        long present = c.present;
        long bytes = (long) Long.bitCount(present) * PAGE;
        allocated -= bytes;
        space.release(bytes);
        c.present = 0;
        c.data = 0;
        // only present pages can hold data (the others are zero), so only they need zeroing on reuse
        if (warm) memory.free(c.slot, present);
        else memory.free(c.slot);
    }

    /**
     * Zeroes chunk offsets {@code [from, to)}: whole pages are freed, the ends of partial pages zeroed; a chunk
     * left with no page is freed.
     */
    private void clearRange(long idx, int from, int to) {
        Chunk c = chunks.get(idx);
        if (c == null || from >= to) return;
        int lo = pageCeil(from), hi = to & -PAGE;
        long whole = lo < hi ? pages(lo, hi) & c.present : 0;
        if (whole == c.present) {
            chunks.remove(idx);
            release(c, false);
            return;
        }
        zeroPartial(c, from, Math.min(to, lo));
        if (hi >= lo) zeroPartial(c, Math.max(from, hi), to);
        if (whole != 0) {
            memory.discard(c.slot, whole);
            long bytes = (long) Long.bitCount(whole) * PAGE;
            c.present &= ~whole;
            c.data &= ~whole;
            allocated -= bytes;
            space.release(bytes);
        }
    }

    /** Zeroes {@code [from, to)} of a chunk, within one page, if that page is present. */
    private void zeroPartial(Chunk c, int from, int to) {
        if (from >= to || !bit(c.present, from >>> PAGE_SHIFT)) return;
        c.slot.memory().asSlice(from, to - from).fill((byte) 0);
    }

    /** Bits of the pages that {@code [from, to)} (chunk offsets, {@code from < to}) touches. */
    private static long pages(int from, int to) {
        if (from >= to) return 0;
        int lo = from >>> PAGE_SHIFT, hi = (to - 1) >>> PAGE_SHIFT;
        return (-1L >>> (63 - hi)) & (-1L << lo);
    }

    private static boolean bit(long bits, int i) {
        return (bits >>> i & 1) != 0;
    }

    /** {@code pos} as an offset in chunk {@code idx}, clamped to the chunk. */
    private int inChunk(long idx, long pos) {
        return (int) Math.max(0, Math.min(chunkSize, pos - (idx << shift)));
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
