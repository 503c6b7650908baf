package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes of regular files: blocks of the file's block size under (ino, DATA, index). Writes go to dirty
 * block buffers in memory; a buffer filled to its end is compressed and checksummed ahead ({@link RecordPrep});
 * {@link #sync} (called at each txg commit) writes them, replacing (and freeing) the previous block. A block of zeros is stored as a hole. Callers hold the pool lock.
 *
 * <p>A block's bytes (dirty buffer or stored block) may be shorter than the block size: what lies past them
 * reads as zeros. The only block of a file no larger than one block gets a buffer as large as its data needs
 * (a power of two, at least a sector), grown by copying when a write goes further, as ZFS grows a file's only
 * block; every block of a larger file is full size. A 1 KiB file so costs a 4 KiB buffer, not a 128 KiB one,
 * and the dirty figure (dirty limit, background commit, quota and space checks) counts what the commit stores.
 */
final class FileData {
    static final int DATA = 80;
    /** The largest file size (2^50: block indexes stay far from overflowing at any record size). */
    static final long MAX_SIZE = 1L << 50;
    private final Dataset ds;
    private final Inodes inodes;
    private final Map<Long, TreeMap<Long, byte[]>> dirty = new HashMap<>();
    private long dirtyBytes;
    /** Records compressed and checksummed ahead of the commit (see {@link RecordPrep}). */
    private final RecordPrep prep = new RecordPrep();
    /**
     * The dataset's compression and checksum as of the txg's first filled record: looking the properties up
     * per record cost 7 % of an 8 KiB write's samples. A change in between is safe: the commit redoes any
     * preparation whose settings differ from the ones it reads.
     */
    private Compression prepComp;
    private Checksum prepCk;

    FileData(Dataset ds, Inodes inodes) {
        this.ds = ds;
        this.inodes = inodes;
    }

    long dirtyBytes() { return dirtyBytes; }

    /** Preparations held for the commit (tests: never more than the dirty records). */
    int preparing() { return prep.size(); }

    long dirtyBytes(long ino) {
        TreeMap<Long, byte[]> m = dirty.get(ino);
        if (m == null) return 0;
        long n = 0;
        for (byte[] b : m.values()) n += b.length;
        return n;
    }

    int blocksize(Inode n) throws IOException {
        if (n.blocksize == 0) n.blocksize = ds.recordsize();
        return n.blocksize;
    }

    private BTree tree() { return ds.tree(); }

    /**
     * The block's current bytes (possibly shorter than the block size: the rest reads as zeros; a stored
     * block's array is shared with the cache and must not be changed), or null for a hole.
     */
    private byte[] block(Inode n, long idx) throws IOException {
        TreeMap<Long, byte[]> m = dirty.get(n.ino);
        if (m != null) {
            byte[] d = m.get(idx);
            if (d != null) return d;
        }
        byte[] v = tree().get(new Key(n.ino, DATA, idx));
        if (v == null) return null;
        return ds.pool().io().read(BlockPointer.fromBytes(v)); // shared with the cache: no copy per read
    }

    /**
     * The dirty buffer of block {@code idx}, at least {@code need} bytes long (what the caller is about to
     * change; 0 to change only bytes the block already has): see the class comment for its size.
     */
    private byte[] dirtyBlock(Inode n, long idx, int need) throws IOException {
        return dirtyBlock(n, idx, need, false);
    }

    /**
     * {@link #dirtyBlock(Inode, long, int)}; {@code whole}: the caller is about to write every byte of the block, so
     * its stored bytes are not read (session 15: a 1 MiB overwrite read its eight 128 KiB records from the device
     * first, one by one, under the pool lock).
     */
    private byte[] dirtyBlock(Inode n, long idx, int need, boolean whole) throws IOException {
        TreeMap<Long, byte[]> m = dirty.computeIfAbsent(n.ino, k -> new TreeMap<>());
        byte[] b = m.get(idx);
        int bs = blocksize(n);
        if (b == null) {
            byte[] cur = whole ? null : block(n, idx);
            int size = bufferSize(n, idx, Math.max(need, cur == null ? 0 : cur.length), bs);
            b = cur == null ? new byte[size] : java.util.Arrays.copyOf(cur, size); // never change a cached block
            m.put(idx, b);
            dirtyBytes += b.length;
        } else {
            prep.forget(b); // every caller changes the buffer: what was prepared of it is void
            if (b.length < need || (b.length < bs && n.size > bs)) { // a write past it, or the file outgrew one block
                byte[] grown = java.util.Arrays.copyOf(b, bufferSize(n, idx, Math.max(need, b.length), bs));
                dirtyBytes += grown.length - b.length;
                m.put(idx, grown);
                b = grown;
            }
        }
        return b;
    }

    /**
     * The buffer size for {@code need} bytes of block {@code idx}: the block size, except for the only block of
     * a file no larger than one block, which gets the next power of two from a sector on (what the commit
     * allocates for it uncompressed, so that the dirty figure never counts less than the commit takes).
     */
    private static int bufferSize(Inode n, long idx, int need, int bs) {
        if (idx != 0 || n.size > bs || need >= bs) return bs;
        return Math.max(Layout.SECTOR, Integer.highestOneBit(Math.max(1, need - 1)) << 1);
    }

    /**
     * A reader of an inode: where its last read ended (a read starting there is sequential and reads ahead) and how
     * far ahead it read then (0: it did not).
     */
    private record Stream(long end, long window) {}
    private final Map<Long, Stream> streams = new HashMap<>();
    /** At most this far ahead of a sequential reader (see readAhead for how far it goes). */
    static final long READ_AHEAD = Long.getLong("pool.readahead.bytes", 8L << 20);

    /** How far ahead one sequential reader reads: a quarter of the pool's budget, at most {@link #READ_AHEAD}. */
    static long streamAhead() {
        return Math.min(READ_AHEAD, dev.ringfuse.pool.io.BlockIo.MAX_AHEAD_BYTES / 4);
    }

    /**
     * The part of a read that belongs to its arrival, in the order the kernel sent the reads: the reader's stream
     * (a read starting where the last one ended is sequential) and the read-ahead it starts. A read whose blocks
     * must come from the device is copied later ({@link #fetch}), and must not then count as the stream's latest.
     */
    void track(Inode n, long off, int len) throws IOException {
        if (off >= n.size) return;
        int want = (int) Math.min(len, n.size - off);
        int bs = blocksize(n);
        Stream s = streams.get(n.ino);
        long window = 0;
        if (s != null && s.end() == off) {
            // the window starts at twice this read (at least 4 records) and doubles with every further sequential
            // read up to the stream's share (8 MiB), as the kernel's readahead grows: a random reader whose read
            // happens to start where its last one ended costs a small window, not 64 records read for nothing
            long max = streamAhead();
            window = s.window() == 0 ? Math.min(max, Math.max(2L * want, 4L * bs)) : Math.min(max, 2 * s.window());
            readAhead(n, (off + want) / bs, bs, window);
        }
        streams.put(n.ino, new Stream(off + want, window));
        if (streams.size() > 4096) streams.clear();
    }

    /** {@code -Dpool.read.fetch=false}: a read waits for its blocks under the pool lock, as before session 17 (for A/B runs). */
    static final boolean FETCH = !"false".equals(System.getProperty("pool.read.fetch"));

    /**
     * Starts the device reads of the stored blocks of {@code [off, off + len)} that are neither in memory nor on
     * their way; returns what the read must wait for (those, and then its other records still on their way), or
     * null when it need not wait off the lock (BlockIo#fetch). Either way {@link #copy} gives the bytes. Not on a snapshot's view: a snapshot destroyed
     * while a read waits frees its blocks, which the view's late copy would then read as checksum errors.
     */
    BlockIo.Fetch fetch(Inode n, long off, int len) throws IOException {
        if (!FETCH || ds.readOnly() || off >= n.size || len <= 0) return null;
        int bs = blocksize(n);
        long first = off / bs, last = (Math.min(off + len, n.size) - 1) / bs;
        TreeMap<Long, byte[]> m = dirty.get(n.ino);
        List<BlockPointer> stored = new ArrayList<>((int) (last - first + 1));
        tree().scan(new Key(n.ino, DATA, first), new Key(n.ino, DATA, last + 1), (k, v) -> {
            if (m == null || !m.containsKey(k.off())) stored.add(BlockPointer.fromBytes(v));
            return true;
        });
        return stored.isEmpty() ? null : ds.pool().io().fetch(stored);
    }

    /**
     * Copies up to {@code len} bytes at {@code off} into {@code dst} (the reply's own buffer: block bytes from
     * the cache or a dirty buffer go there in one copy, holes are zero-filled in place); returns the count. The
     * file may have changed since {@link #track}: what it holds now is what is copied.
     */
    int copy(Inode n, long off, MemorySegment dst, int len) throws IOException {
        if (off >= n.size) return 0;
        int want = (int) Math.min(len, n.size - off);
        int bs = blocksize(n);
        int done = 0;
        while (done < want) {
            long pos = off + done;
            long idx = pos / bs;
            int in = (int) (pos % bs);
            int k = Math.min(want - done, bs - in);
            byte[] b = block(n, idx);
            int have = b == null ? 0 : Math.clamp(b.length - in, 0, k); // a short block: zeros past its bytes
            if (have > 0) MemorySegment.copy(b, in, dst, ValueLayout.JAVA_BYTE, done, have);
            if (have < k) dst.asSlice(done + have, k - have).fill((byte) 0);
            done += k;
        }
        return want;
    }

    /**
     * Starts reads of the stored blocks from {@code idx} over the next {@code window} bytes (at most a quarter of the
     * pool's read-ahead bytes, 8 MiB with the default 32: other readers still get room), at least 4 records (1 MiB
     * records: 4 MiB) when READ_AHEAD allows.
     */
    private void readAhead(Inode n, long idx, int bs, long window) throws IOException {
        long blocks = Math.max(1, Math.max(Math.min(4, READ_AHEAD / bs), window / bs));
        long last = Math.min((n.size - 1) / bs, idx + blocks - 1);
        if (last < idx) return;
        TreeMap<Long, byte[]> m = dirty.get(n.ino);
        dev.ringfuse.pool.io.BlockIo.AheadWindow w = ds.pool().io().aheadWindow();
        try {
            tree().scan(new Key(n.ino, DATA, idx), new Key(n.ino, DATA, last + 1),
                    (k, v) -> (m != null && m.containsKey(k.off())) || w.prefetch(BlockPointer.fromBytes(v)));
        } finally {
            w.finish(); // the blocks it gathered are counted against the budget: they must be read
        }
    }

    /**
     * Copies {@code len} bytes of {@code src} (the request's own buffer: no array of its own per write) into
     * the dirty blocks at {@code off}.
     */
    void write(Inode n, long off, MemorySegment src, int len) throws IOException {
        if (off + len < 0 || off + len > MAX_SIZE) throw new FuseException(Errno.EFBIG);
        int bs = blocksize(n);
        long needed = (long) ((len + bs - 1) / bs + 1) * bs;
        checkSpace(n, needed); // ENOSPC, or EDQUOT past a quota
        int done = 0;
        while (done < len) {
            long pos = off + done;
            long idx = pos / bs;
            int in = (int) (pos % bs);
            int k = Math.min(len - done, bs - in);
            byte[] b = dirtyBlock(n, idx, in + k, in == 0 && k == bs);
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, done, b, in, k);
            done += k;
            if (in + k == bs) { // written to its end: a sequential writer is done with it, prepare it now
                if (prepComp == null) {
                    prepComp = ds.compression();
                    prepCk = ds.checksum();
                }
                prep.start(b, bs, prepComp, prepCk);
            }
        }
        if (off + len > n.size) n.size = off + len;
    }

    /**
     * Fails unless the dataset has room for {@code bytes} more (quota, reservation, pool). The check may commit
     * the txg to count exactly, which rewrites this file's dirty blocks: {@code n}, read before, then takes
     * its allocated size from the tree so that the caller's later put keeps it right.
     */
    private void checkSpace(Inode n, long bytes) throws IOException {
        long txg = ds.pool().txg();
        ds.checkSpace(bytes);
        if (ds.pool().txg() != txg) {
            Inode now = inodes.get(n.ino);
            if (now != null) n.allocated = now.allocated;
        }
    }

    /**
     * Fails unless truncating to {@code size} has room: rewriting the cut block takes one, unless the truncate
     * frees whole blocks past it (then it is always allowed, as deletion is). Called before anything changes.
     */
    void checkTruncate(Inode n, long size) throws IOException {
        // the largest size a write may reach is the largest a truncate may set, as ext4 and xfs refuse both past theirs
        if (size > MAX_SIZE) throw new FuseException(Errno.EFBIG);
        if (size >= n.size || n.blocksize == 0 || size % n.blocksize == 0) return;
        int bs = n.blocksize;
        TreeMap<Long, byte[]> m = dirty.get(n.ino);
        if ((m == null || !m.containsKey(size / bs)) && nextBlock(n, (size + bs - 1) / bs) < 0) checkSpace(n, bs);
    }

    /** Drops bytes at and after {@code size} (blocks wholly past it are freed; the tail of the last is zeroed). */
    void truncate(Inode n, long size) throws IOException {
        if (size < n.size && n.blocksize != 0) {
            int bs = n.blocksize;
            long firstGone = (size + bs - 1) / bs;
            dropBlocks(n, firstGone, Long.MAX_VALUE);
            if (size % bs != 0) {
                long idx = size / bs;
                byte[] cur = block(n, idx);
                if (cur != null && cur.length > size % bs) { // a short block may end before the cut: nothing to zero
                    byte[] b = dirtyBlock(n, idx, 0);
                    java.util.Arrays.fill(b, (int) (size % bs), b.length, (byte) 0);
                }
            }
        }
        n.size = size;
    }

    /** Zeroes [off, off+len): whole blocks become holes. */
    void punch(Inode n, long off, long len) throws IOException {
        if (n.blocksize == 0 || off >= n.size) return;
        long end = Math.min(n.size, off + len);
        int bs = n.blocksize;
        long firstWhole = (off + bs - 1) / bs, lastWhole = end / bs; // [firstWhole, lastWhole)
        if (firstWhole < lastWhole) dropBlocks(n, firstWhole, lastWhole);
        for (long p = off; p < end; ) {
            long idx = p / bs;
            long blockEnd = (idx + 1) * bs;
            long stop = Math.min(end, blockEnd);
            byte[] cur = idx >= firstWhole && idx < lastWhole ? null : block(n, idx);
            int from = (int) (p - idx * bs);
            if (cur != null && cur.length > from) { // past a short block's bytes it is zeros already
                byte[] b = dirtyBlock(n, idx, 0);
                java.util.Arrays.fill(b, from, Math.min(b.length, (int) (stop - idx * bs)), (byte) 0);
            }
            p = stop;
        }
    }

    /** Frees blocks with index in [from, to), stored and dirty. */
    private void dropBlocks(Inode n, long from, long to) throws IOException {
        TreeMap<Long, byte[]> m = dirty.get(n.ino);
        if (m != null) {
            var sub = m.subMap(from, true, to, false);
            for (byte[] b : sub.values()) {
                dirtyBytes -= b.length;
                prep.forget(b); // else its preparation holds the buffer (and a compressed copy) until the commit
            }
            sub.clear();
        }
        List<Key> gone = new ArrayList<>();
        List<BlockPointer> bps = new ArrayList<>();
        tree().scan(new Key(n.ino, DATA, from), to == Long.MAX_VALUE ? Key.after(n.ino, DATA) : new Key(n.ino, DATA, to), (k, v) -> {
            gone.add(k);
            bps.add(BlockPointer.fromBytes(v));
            return true;
        });
        for (int i = 0; i < gone.size(); i++) {
            tree().delete(gone.get(i));
            free(n, bps.get(i));
        }
    }

    private void free(Inode n, BlockPointer bp) {
        ds.free(bp); // to the free map, or to a dead list while a snapshot holds it; counted by the dataset
        n.allocated -= bp.allocated();
    }

    /** Frees everything of a file being deleted. */
    void freeAll(Inode n) throws IOException {
        dropBlocks(n, 0, Long.MAX_VALUE);
        dirty.remove(n.ino);
    }

    /**
     * SEEK_DATA (data=true) or SEEK_HOLE from {@code off}; -1 for ENXIO. Holes are missing blocks and, inside
     * a block, 4 KiB pages of zeros (as tmpfs reports pages never written).
     */
    long seek(Inode n, long off, boolean data) throws IOException {
        if (off >= n.size || off < 0) return -1;
        if (n.blocksize == 0) return data ? -1 : off;
        int bs = n.blocksize;
        long lastIdx = (n.size - 1) / bs;
        long i = off / bs;
        while (i <= lastIdx) {
            byte[] b = block(n, i);
            if (b == null) {
                if (!data) return Math.max(off, i * bs);
                long next = nextBlock(n, i + 1);
                if (next < 0 || next > lastIdx) return -1;
                i = next;
                continue;
            }
            long from = Math.max(off, i * bs);
            for (long p = from / PAGE * PAGE; p < (i + 1) * bs && p < n.size; p += PAGE) {
                boolean isData = !zeroPage(b, (int) (p - i * bs));
                if (isData == data) return Math.max(off, p);
            }
            i++;
        }
        return data ? -1 : n.size;
    }

    static final int PAGE = 4096;

    private static boolean zeroPage(byte[] b, int at) {
        int end = Math.min(b.length, at + PAGE);
        for (int k = at; k < end; k++) if (b[k] != 0) return false;
        return true;
    }

    /** The first stored or dirty block index at or after {@code from}, or -1. */
    private long nextBlock(Inode n, long from) throws IOException {
        long[] found = {-1};
        tree().scan(new Key(n.ino, DATA, from), Key.after(n.ino, DATA), (k, v) -> {
            found[0] = k.off();
            return false;
        });
        TreeMap<Long, byte[]> m = dirty.get(n.ino);
        Long d = m == null ? null : m.ceilingKey(from);
        if (d != null && (found[0] < 0 || d < found[0])) return d;
        return found[0];
    }

    /**
     * Writes every dirty block as of {@code txg} (the dataset's sync hook). Compression and checksums run on
     * {@link RecordPrep}'s threads, most of them started before the commit; here the records are only
     * placed, in order, and entered in the tree.
     */
    void sync(long txg) throws IOException {
        prepComp = null; // the next txg's records look the properties up again
        prepCk = null;
        if (dirty.isEmpty()) return;
        Compression comp = ds.compression();
        Checksum ck = ds.checksum();
        record Out(Inode n, long idx, byte[] data, int len, java.util.concurrent.Future<BlockIo.Prepared> prepared) {}
        List<Out> outs = new ArrayList<>();
        for (var e : dirty.entrySet()) {
            Inode n = inodes.get(e.getKey());
            if (n == null) continue;
            for (var b : e.getValue().entrySet()) {
                long idx = b.getKey();
                byte[] data = b.getValue();
                int len = (int) Math.min(data.length, Math.max(0, n.size - idx * n.blocksize));
                len = (len + 511) / 512 * 512;
                boolean hole = len == 0 || isZero(data, len);
                outs.add(new Out(n, idx, data, len, hole ? null : prep.get(data, len, comp, ck)));
            }
        }
        prep.clear();
        // cached only once every record is placed: a sync that fails halfway keeps its dirty buffers, which later
        // writes change in place, so none of them may be in the cache yet (BlockIo#rewritten)
        record Carry(BlockPointer old, BlockPointer now, Out out) {}
        List<Carry> carried = new ArrayList<>();
        Inode last = null;
        for (Out o : outs) {
            Inode n = o.n();
            if (last != null && last != n) inodes.put(last);
            last = n;
            Key k = new Key(n.ino, DATA, o.idx());
            byte[] old = tree().get(k);
            BlockPointer oldBp = old == null ? null : BlockPointer.fromBytes(old);
            if (oldBp != null) free(n, oldBp);
            if (o.prepared() == null) {
                if (old != null) tree().delete(k);
                continue;
            }
            BlockPointer bp = ds.pool().io().write(RecordPrep.await(o.prepared()), BlockType.FILE_DATA, 0, txg, 1, true);
            if (oldBp != null) carried.add(new Carry(oldBp, bp, o));
            tree().put(k, bp.toBytes());
            n.allocated += bp.allocated();
            ds.born(bp);
        }
        if (last != null) inodes.put(last);
        for (Carry c : carried) ds.pool().io().rewritten(c.old(), c.now(), c.out().data(), c.out().len());
        dirty.clear();
        dirtyBytes = 0;
        ds.pool().dirty();
    }

    private static boolean isZero(byte[] b, int len) {
        for (int i = 0; i < len; i++) if (b[i] != 0) return false;
        return true;
    }
}
