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
 * The bytes of one regular file: a sparse map from chunk index to a byte array, plus the file size.
 *
 * <p>Chunk {@code i} covers bytes {@code [i * chunkSize, (i + 1) * chunkSize)}. Its array starts at the
 * chunk's first byte and is a whole number of 4 KiB pages long, at most {@code chunkSize}: small files
 * cost pages, not chunks, and an append grows only the last chunk (by doubling, so appends stay
 * amortised O(1)) — never the whole file. Everything not covered by an array is a hole and reads as zeros.
 * Bytes of an array beyond the file size are always zero, so growing the size never exposes stale data.
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

    private final int shift;
    private final int chunkSize;
    private final long mask;
    private final Space space;
    private final TreeMap<Long, byte[]> chunks = new TreeMap<>();
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

    int chunkCount() { return chunks.size(); }

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
            byte[] c = chunks.get(pos >>> shift);
            int avail = c == null ? 0 : Math.max(0, Math.min(k, c.length - in));
            if (avail > 0) MemorySegment.copy(c, in, dst, ValueLayout.JAVA_BYTE, done, avail);
            if (avail < k) dst.asSlice(done + avail, k - avail).fill((byte) 0);
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
                byte[] c = grow(pos >>> shift, in + k, true);
                MemorySegment.copy(src, ValueLayout.JAVA_BYTE, done, c, in, k);
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
        dropFrom(firstDropped);
        if ((newSize & mask) != 0) trim(newSize >>> shift, (int) (newSize & mask));
        size = newSize;
    }

    /** FALLOC_FL_PUNCH_HOLE: zeroes the range, dropping whole chunks and trimming chunk tails; keeps the size. */
    void punchHole(long off, long len) {
        checkRange(off, len);
        if (len == 0) return;
        long end = off + len;
        long cs0 = (off >>> shift), cs1 = (end - 1) >>> shift;
        for (Long idx : new ArrayList<>(chunks.subMap(cs0, true, cs1, true).keySet())) {
            long start = idx << shift;
            byte[] c = chunks.get(idx);
            int from = (int) (Math.max(off, start) - start);
            long to = Math.min(end - start, c.length);
            if (to <= from) continue;
            if (to >= c.length) trim(idx, from);
            else Arrays.fill(c, from, (int) to, (byte) 0);
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
        long needed = (last - first) * chunkSize + roundUp((int) (end - (last << shift)));
        for (Map.Entry<Long, byte[]> e : chunks.subMap(first, true, last, true).entrySet()) {
            needed -= Math.min(e.getValue().length, wantedLength(e.getKey(), end));
        }
        space.reserve(needed);
        for (long idx = first; idx <= last; idx++) grow(idx, wantedLength(idx, end), false);
        if (!keepSize && end > size) size = end;
    }

    /** FALLOC_FL_ZERO_RANGE: the range reads as zeros and is allocated. */
    void zeroRange(long off, long len, boolean keepSize) {
        punchHole(off, len);
        allocate(off, len, keepSize);
    }

    /** SEEK_DATA: the first offset at or after {@code off} inside an array, or -1 (ENXIO). */
    long seekData(long off) {
        long sz = size;
        if (off < 0 || off >= sz) return -1;
        for (Map.Entry<Long, byte[]> e : chunks.tailMap(off >>> shift, true).entrySet()) {
            long start = e.getKey() << shift;
            if (start >= sz) return -1;
            if (start + e.getValue().length > off) return Math.max(off, start);
        }
        return -1;
    }

    /** SEEK_HOLE: the first offset at or after {@code off} not inside an array (EOF counts as a hole), or -1. */
    long seekHole(long off) {
        long sz = size;
        if (off < 0 || off >= sz) return -1;
        long pos = off;
        while (pos < sz) {
            byte[] c = chunks.get(pos >>> shift);
            long start = (pos >>> shift) << shift;
            if (c == null || pos - start >= c.length) return pos;
            pos = start + c.length;
            if (c.length < chunkSize) return Math.min(pos, sz);
        }
        return sz;
    }

    /** Frees every chunk; the size is left as it is. */
    void clear() {
        space.release(allocated);
        allocated = 0;
        chunks.clear();
    }

    /** Ensures chunk {@code idx} has an array at least {@code needed} bytes long; returns it. */
    private byte[] grow(long idx, int needed, boolean reserve) {
        byte[] c = chunks.get(idx);
        int have = c == null ? 0 : c.length;
        if (have >= needed) return c;
        int want = Math.max(roundUp(needed), Math.min(chunkSize, have * 2));
        if (reserve) space.reserve(want - have);
        byte[] n = c == null ? new byte[want] : Arrays.copyOf(c, want);
        chunks.put(idx, n);
        allocated += want - have;
        return n;
    }

    /** Array length chunk {@code idx} needs to cover everything before {@code end}. */
    private int wantedLength(long idx, long end) {
        long inChunk = end - (idx << shift);
        return inChunk >= chunkSize ? chunkSize : roundUp((int) inChunk);
    }

    /** Zeroes chunk {@code idx} from {@code from} on and trims its array to whole pages (none: drops it). */
    private void trim(long idx, int from) {
        byte[] c = chunks.get(idx);
        if (c == null || from >= c.length) return;
        int keep = roundUp(from);
        if (keep == 0) {
            chunks.remove(idx);
        } else {
            Arrays.fill(c, from, keep, (byte) 0);
            if (keep < c.length) chunks.put(idx, Arrays.copyOf(c, keep));
        }
        space.release(c.length - keep);
        allocated -= c.length - keep;
    }

    private void dropFrom(long firstIdx) {
        Map<Long, byte[]> tail = chunks.tailMap(firstIdx, true);
        long freed = 0;
        for (byte[] c : tail.values()) freed += c.length;
        tail.clear();
        space.release(freed);
        allocated -= freed;
    }

    private static int roundUp(int n) {
        return (n + PAGE - 1) & -PAGE;
    }

    private static void checkRange(long off, long len) {
        if (off < 0 || len < 0) throw new FuseException(Errno.EINVAL);
        if (off + len < 0) throw new FuseException(Errno.EFBIG);
    }

    /** Chunk indexes that hold arrays, for tests. */
    List<Long> chunkIndexes() {
        return List.copyOf(chunks.keySet());
    }
}
