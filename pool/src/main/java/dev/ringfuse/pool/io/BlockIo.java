package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.space.Allocator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Blocks on top of devices: compression (kept only if it saves a sector), checksums, ditto copies of
 * metadata, and verification on every read with per-device error counters. Writes of a commit are
 * queued and submitted together by {@link #submit()} (all in flight at once, per device). Blocks queued or
 * in flight are readable from memory until they completed (a commit's I/O runs while the next txg reads).
 * File blocks read are kept in a {@link BlockCache}; {@link #aheadWindow} starts reads ahead of a sequential
 * reader, several in flight. A top-level device may be a {@link MirrorDevice}: reads then verify side by side
 * and heal bad sides; a bad ditto copy is rewritten from a good one ({@link Healing}).
 */
public final class BlockIo {
    private static final int S = Layout.SECTOR;
    private final BlockDevice[] devices;
    private final DeviceStats[] stats;
    private final Allocator allocator;
    private final List<List<BlockDevice.Write>> queued;
    private final BlockCache cache = new BlockCache(BlockCache.defaultCapacity());
    /** Sector-padded bytes of blocks queued or being written, by {@link #place}. */
    private final ConcurrentHashMap<Long, byte[]> pending = new ConcurrentHashMap<>();
    /**
     * Read-ahead in flight or done but not consumed yet: the raw bytes of the first copy, keyed by first-copy
     * place and birth txg (a place freed and written again has a later birth; the checksum is checked on use).
     * Not by BlockPointer: its equals/hashCode encode 128 bytes per lookup, twice per read.
     */
    private final ConcurrentHashMap<Ahead, CompletableFuture<Checked>> ahead = new ConcurrentHashMap<>();
    /**
     * A block read ahead, checked and decoded on a checker thread as soon as it arrived (outside the pool lock
     * and in parallel with the next reads): its logical bytes, or null when its stored bytes did not match the
     * checksum it was read for (the reader then takes the verified path, which counts and repairs).
     */
    private record Checked(byte[] checksum, byte[] bytes) {}
    /**
     * Checksums and decompression of read-ahead and of `pool verify`'s reads, off the requests' threads (virtual:
     * one per block, cheap). Never shut down: a read's buffer goes back to the device in the check that runs
     * here, so a read that completes late (after its reader gave up) must still find it accepting.
     */
    static final java.util.concurrent.ExecutorService CHECKERS =
            java.util.concurrent.Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("pool-check-", 0).factory());

    /** A read-ahead's key; {@code size}, the block's logical size, is what it counts against {@link #MAX_AHEAD_BYTES}. */
    private record Ahead(long place, long birth, int size) {
        static Ahead of(BlockPointer bp) {
            Dva d = bp.dvas()[0];
            return new Ahead(BlockIo.place(d.device(), d.offset()), bp.birth(), bp.lsize());
        }
    }

    /**
     * Read-ahead in flight or waiting for its reader, pool-wide, in bytes of the blocks' logical size: a 32nd of the
     * heap, between 8 and 32 MiB (32 MiB, 8 MiB per stream, from a heap of 1 GiB on; 256 records of 128 KiB, 2,048
     * of 16 KiB). Bytes and not a count of blocks (32 until session 14): with 16 KiB records 32 blocks reached
     * 256 KiB ahead and a sequential read ran at 110–138 MiB/s. 32 MiB since session 15 (8 before): 2 MiB per
     * stream kept two merged reads in flight, which a device that answers in a millisecond does not keep busy
     * (pool/DESIGN.md, "Read-ahead").
     */
    public static final long MAX_AHEAD_BYTES = Long.getLong("pool.readahead.inflight.bytes",
            Math.clamp(Runtime.getRuntime().maxMemory() / 32, 8L << 20, 32L << 20));
    /** The sizes of the entries of {@link #ahead}. */
    private final java.util.concurrent.atomic.AtomicLong aheadBytes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong aheadHits = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong aheadReads = new java.util.concurrent.atomic.AtomicLong();

    public BlockIo(BlockDevice[] devices, Allocator allocator) {
        this.devices = devices;
        this.allocator = allocator;
        this.stats = new DeviceStats[devices.length];
        this.queued = new ArrayList<>();
        for (int i = 0; i < devices.length; i++) {
            stats[i] = new DeviceStats();
            queued.add(new ArrayList<>());
        }
    }

    public Allocator allocator() { return allocator; }
    public DeviceStats stats(int device) { return stats[device]; }
    public BlockDevice device(int i) { return devices[i]; }
    public int deviceCount() { return devices.length; }
    public BlockCache cache() { return cache; }

    private static long place(int device, long offset) {
        return offset | device; // offsets are sector multiples: the low 12 bits are free, devices < 64
    }

    /**
     * A block's stored form, not placed yet: compressed (kept only if it saves a sector) or raw, padded to
     * the sector, and its checksum. Built without any lock ({@link #prepare}), so that a commit can have its
     * records prepared ahead, on other threads; {@link #write(Prepared, BlockType, int, long, long, boolean)}
     * then only allocates and queues.
     */
    public record Prepared(byte[] padded, int len, int psize, Compression used, Checksum ck, byte[] sum) {}

    /** Compresses and checksums {@code data[0, len)}; thread-safe, touches no state of the pool. */
    public static Prepared prepare(BlockType type, byte[] data, int len, Compression comp, Checksum ck) {
        byte[] stored = comp.compressIfSmaller(data, len, S);
        Compression used = stored == null ? Compression.OFF : comp;
        int psize = stored == null ? len : stored.length;
        byte[] padded;
        if (stored == null && type == BlockType.FILE_DATA && len == data.length && len % S == 0) {
            padded = data; // the filesystem hands over file blocks it no longer changes: no copy
        } else {
            padded = new byte[(int) Layout.roundUp(psize)];
            System.arraycopy(stored == null ? data : stored, 0, padded, 0, psize);
        }
        return new Prepared(padded, len, psize, used, ck, ck.compute(padded, 0, psize));
    }

    /**
     * Prepares a block of {@code len} bytes of {@code data} and queues its writes; returns its pointer.
     * Metadata gets two copies. {@code useReserve}: commits and removals may dip into the reserve.
     */
    public BlockPointer write(BlockType type, byte[] data, int len, Compression comp, Checksum ck, int level,
                              long birth, long fill, boolean useReserve) throws IOException {
        return write(prepare(type, data, len, comp, ck), type, level, birth, fill, useReserve);
    }

    /** Allocates and queues a prepared block; returns its pointer. */
    public BlockPointer write(Prepared p, BlockType type, int level, long birth, long fill, boolean useReserve) throws IOException {
        int copies = type.metadata ? 2 : 1;
        Dva[] dvas = allocator.allocate(p.padded().length, copies, useReserve);
        if (dvas == null) throw new NoSpaceException("pool is full (" + p.padded().length + " bytes wanted)");
        for (Dva d : dvas) if (!d.isEmpty()) queue(d, p.padded());
        return new BlockPointer(dvas, p.len(), p.psize(), type, p.used(), p.ck(), level, birth, fill, p.sum());
    }

    /** Queues {@code data} (sector-padded) at a pre-allocated place (space log blocks, which record themselves). */
    public BlockPointer writeAt(Dva[] dvas, BlockType type, byte[] data, long birth) {
        byte[] sum = Checksum.CRC32C.compute(data, 0, data.length);
        for (Dva d : dvas) if (!d.isEmpty()) queue(d, data);
        return new BlockPointer(dvas, data.length, data.length, type, Compression.OFF, Checksum.CRC32C, 0, birth, 0, sum);
    }

    private synchronized void queue(Dva d, byte[] padded) {
        queued.get(d.device()).add(new BlockDevice.Write(d.offset(), padded));
        pending.put(place(d.device(), d.offset()), padded);
    }

    /** Submits every queued write (each device's writes all in flight) and waits for them. */
    public long submit() throws IOException {
        List<List<BlockDevice.Write>> batches;
        synchronized (this) {
            batches = new ArrayList<>();
            for (List<BlockDevice.Write> q : queued) {
                batches.add(new ArrayList<>(q));
                q.clear();
            }
        }
        long bytes = 0;
        try {
            for (int i = 0; i < devices.length; i++) {
                if (batches.get(i).isEmpty()) continue;
                try {
                    devices[i].writeAll(batches.get(i));
                } catch (IOException e) {
                    stats[i].writeErrors.incrementAndGet();
                    throw e;
                }
                for (BlockDevice.Write w : batches.get(i)) bytes += w.data().length;
            }
            return bytes;
        } finally {
            // after a failure the pool is suspended: nothing reads these places any more
            for (int i = 0; i < batches.size(); i++) {
                for (BlockDevice.Write w : batches.get(i)) pending.remove(place(i, w.offset()), w.data());
            }
        }
    }

    /** Drops queued writes (after a failed commit). */
    public synchronized void discardQueued() {
        for (int i = 0; i < queued.size(); i++) {
            for (BlockDevice.Write w : queued.get(i)) pending.remove(place(i, w.offset()), w.data());
            queued.get(i).clear();
        }
    }

    /**
     * One sequential reader's read-ahead for one read: {@link AheadWindow#prefetch} its blocks in order, stop at
     * the first false, then {@link AheadWindow#finish}. The budget is swept for blocks read ahead that nobody claimed at most once per window: a
     * sweep walks every entry (up to 16,384 with 512-byte records) under the pool lock.
     */
    public AheadWindow aheadWindow() {
        return new AheadWindow();
    }

    public final class AheadWindow {
        private boolean swept;
        /** Blocks offered and counted, stored one after another: read together by {@link #finish}, or when the next does not follow. */
        private final List<BlockPointer> run = new ArrayList<>();
        private long runBytes;

        private AheadWindow() {}

        /**
         * Starts reading a file block the reader will want soon (nothing if cached, busy or already ahead); false
         * when the budget is spent: the window ends there. Blocks stored one after another are gathered into one
         * device read ({@link #MERGE_BYTES}): call {@link #finish} when the window's blocks have all been offered.
         */
        public boolean prefetch(BlockPointer bp) {
            if (!wanted(bp)) return true;
            Ahead key = Ahead.of(bp);
            Dva d = bp.dvas()[0];
            if (aheadBytes.get() + key.size() > MAX_AHEAD_BYTES) {
                if (swept) return false;
                swept = true;
                sweepAhead();
                if (aheadBytes.get() + key.size() > MAX_AHEAD_BYTES) return false;
            }
            if (!run.isEmpty() && (!follows(run.getLast(), bp) || runBytes + d.asize() > MERGE_BYTES)) finish();
            aheadBytes.addAndGet(key.size()); // counted from here: a block gathered is as good as in flight
            run.add(bp);
            runBytes += d.asize();
            return true;
        }

        /** Starts the read of the blocks gathered so far (every window ends with it, also when its walk failed). */
        public void finish() {
            if (run.isEmpty()) return;
            List<BlockPointer> blocks = List.copyOf(run);
            run.clear();
            runBytes = 0;
            List<CompletableFuture<Checked>> reads;
            try {
                reads = readRun(blocks, (bp, raw) -> new Checked(bp.checksum(), decodeStored(bp, raw)));
            } catch (RuntimeException | Error e) {
                // no read started (a device that refused at once, no memory for a buffer): give the budget back,
                // the reader reads for itself
                for (BlockPointer bp : blocks) aheadBytes.addAndGet(-Ahead.of(bp).size());
                if (e instanceof Error err) throw err;
                return;
            }
            aheadReads.incrementAndGet();
            for (int i = 0; i < blocks.size(); i++) {
                Ahead key = Ahead.of(blocks.get(i));
                // an entry replaced (another window got there first) had the same key and size: counted once
                if (ahead.put(key, reads.get(i)) != null) aheadBytes.addAndGet(-key.size());
            }
        }
    }

    /** Whether {@code bp} is a stored file block that is neither in memory nor being read: one a reader would wait for. */
    private boolean wanted(BlockPointer bp) {
        if (bp.isHole() || bp.type() != BlockType.FILE_DATA) return false;
        Dva d = bp.dvas()[0];
        return d.device() < devices.length && !ahead.containsKey(Ahead.of(bp))
                && !pending.containsKey(place(d.device(), d.offset())) && !cache.contains(bp);
    }

    /**
     * One read's wait for its blocks ({@link #fetch}): {@link #arrived} completes with true once every block it
     * waits for has arrived and been checked, or with false after {@link #FETCH_WAIT_SECONDS} (then
     * {@link #dropUnarrived}); its read-ahead entries are kept from sweeps until {@link #release}.
     */
    public static final class Fetch {
        private final List<Ahead> keys;
        private final List<CompletableFuture<Checked>> reads;
        public final CompletableFuture<Boolean> arrived;

        private Fetch(List<Ahead> keys, List<CompletableFuture<Checked>> reads) {
            this.keys = keys;
            this.reads = reads;
            this.arrived = CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                    .handle((ok, err) -> true) // a failed read is the copy's to retry, count and report
                    .completeOnTimeout(false, FETCH_WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** How long a read waits for its blocks before it reads them the ordinary way (which has its own deadlines). */
    public static final long FETCH_WAIT_SECONDS = 60;
    /** Read-ahead entries a {@link Fetch} waits for, with the number of reads waiting: no sweep drops them. */
    private final ConcurrentHashMap<Ahead, Integer> pinned = new ConcurrentHashMap<>();

    /**
     * Before a read of {@code blocks} (its file blocks, in file order): starts the device reads of those neither in
     * memory nor being read (merged where they lie one after another, as read-ahead does and within its budget),
     * and returns what the read must wait for: those and the ones another waiting read is fetching; null when it
     * need not wait. The caller then copies through {@link #read(BlockPointer)} as usual, which claims each block from the
     * read-ahead entries only if it matches the pointer the file holds *then* (pool/DESIGN.md, "Reads that wait
     * for the device"): so the pool lock need not be held while they are read, and several reads are in flight.
     */
    public Fetch fetch(List<BlockPointer> blocks) {
        AheadWindow w = new AheadWindow();
        List<Ahead> keys = new ArrayList<>(blocks.size());
        List<Ahead> present = new ArrayList<>(); // read ahead, not waited for unless this read waits anyway
        try {
            for (BlockPointer bp : blocks) {
                if (bp.isHole() || bp.type() != BlockType.FILE_DATA) continue;
                Ahead key = Ahead.of(bp);
                CompletableFuture<Checked> f = ahead.get(key);
                if (f != null) {
                    // on its way for another waiting read (two reads of one record): wait for it off the lock too. One
                    // read ahead for a sequential reader is waited for under the lock as before: it is almost always
                    // there first, and a hop to another thread per READ cost a sequential read 10 % more CPU
                    if (!f.isDone() && pinned.containsKey(key)) keys.add(key);
                    else present.add(key);
                } else if (wanted(bp)) {
                    if (!w.prefetch(bp)) break; // the budget is spent: the rest is read the ordinary way
                    keys.add(key);
                }
            }
        } finally {
            w.finish();
        }
        if (keys.isEmpty()) return null;
        keys.addAll(present); // the read waits off the lock anyway: for these too, and no sweep may take them meanwhile
        List<Ahead> held = new ArrayList<>(keys.size());
        List<CompletableFuture<Checked>> reads = new ArrayList<>(keys.size());
        try {
            for (Ahead key : keys) {
                pinned.merge(key, 1, Integer::sum);
                CompletableFuture<Checked> f = ahead.get(key);
                if (f == null) {
                    unpin(key);
                    continue;
                }
                held.add(key);
                reads.add(f);
            }
            return reads.isEmpty() ? null : new Fetch(held, reads);
        } catch (RuntimeException | Error e) {
            for (Ahead key : held) unpin(key);
            throw e;
        }
    }

    /**
     * {@code f} timed out: its entries still in flight are dropped (their budget back; the copy reads those blocks
     * the ordinary way and does not wait for them a second time). Those that arrived stay pinned for the copy.
     */
    public void dropUnarrived(Fetch f) {
        for (int i = 0; i < f.keys.size(); i++) {
            Ahead key = f.keys.get(i);
            CompletableFuture<Checked> r = f.reads.get(i);
            if (!r.isDone() && ahead.remove(key, r)) aheadBytes.addAndGet(-key.size());
        }
    }

    /** The read waiting for {@code f} has copied: what it did not claim may be swept again. */
    public void release(Fetch f) {
        for (Ahead key : f.keys) unpin(key);
    }

    private void unpin(Ahead key) {
        pinned.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
    }

    /**
     * Blocks stored one after another on a device are read by one device read of up to this many bytes (read-ahead,
     * `pool verify`): 1 MiB, the size of the device's registered buffers. This disk (a virtual disk over a
     * host's file) read 1 MiB requests 20–40 % faster than 128 KiB ones at the same bytes in flight (fio,
     * pool/DESIGN.md "Merged reads"); 0 reads every block on its own.
     */
    public static final long MERGE_BYTES = Long.getLong("pool.read.merge.bytes", 1L << 20);

    /** Whether {@code next}'s first copy lies right after {@code prev}'s on the same device. */
    static boolean follows(BlockPointer prev, BlockPointer next) {
        Dva a = prev.dvas()[0], b = next.dvas()[0];
        return a.device() == b.device() && a.offset() + a.asize() == b.offset();
    }

    /**
     * Reads {@code run} (first copies stored one after another on one device, see {@link #follows}) by one device
     * read and applies {@code use} to each block's bytes where they lie in the device's buffer, on a checker
     * thread; one future per block, completed as soon as its own {@code use} returned. A failed read fails every
     * block's future; a {@code use} that throws fails only its block's.
     */
    <T> List<CompletableFuture<T>> readRun(List<BlockPointer> run, java.util.function.BiFunction<BlockPointer, java.lang.foreign.MemorySegment, T> use) {
        List<CompletableFuture<T>> each = new ArrayList<>(run.size());
        for (int i = 0; i < run.size(); i++) each.add(new CompletableFuture<>());
        Dva first = run.getFirst().dvas()[0], last = run.getLast().dvas()[0];
        long start = first.offset();
        int len = (int) (last.offset() + last.asize() - start);
        devices[first.device()].readAsync(start, len, CHECKERS, raw -> {
            for (int i = 0; i < run.size(); i++) {
                Dva d = run.get(i).dvas()[0];
                try {
                    each.get(i).complete(use.apply(run.get(i), raw.asSlice(d.offset() - start, d.asize())));
                } catch (Throwable t) {
                    each.get(i).completeExceptionally(t);
                }
            }
            return null;
        }).whenComplete((ignored, err) -> {
            if (err != null) for (CompletableFuture<T> f : each) f.completeExceptionally(err);
        });
        return each;
    }

    /** Drops the blocks read ahead that finished and nobody claimed (their reader went elsewhere) nor waits for. */
    private void sweepAhead() {
        for (Map.Entry<Ahead, CompletableFuture<Checked>> e : ahead.entrySet()) {
            if (e.getValue().isDone() && !pinned.containsKey(e.getKey()) && ahead.remove(e.getKey(), e.getValue())) {
                aheadBytes.addAndGet(-e.getKey().size());
            }
        }
    }

    /** Bytes of read-ahead in flight or waiting for its reader. */
    public long aheadBytes() { return aheadBytes.get(); }

    /** Device reads read-ahead started (each covers one block or several stored one after another) since the pool was opened. */
    public long aheadReads() { return aheadReads.get(); }

    /** File blocks served from read-ahead (checked against the reader's pointer) since the pool was opened. */
    public long aheadHits() { return aheadHits.get(); }

    /**
     * The commit wrote file block {@code now} over {@code old} with the logical bytes {@code data} (at least
     * {@code len}; never changed again): if {@code old} was cached, {@code now} takes its place (BlockCache#carry).
     */
    public void rewritten(BlockPointer old, BlockPointer now, byte[] data, int len) {
        if (!old.isHole() && now.type() == BlockType.FILE_DATA && now.lsize() == len) cache.carry(old, now, data, len);
    }

    /** Flushes every device. */
    public void flush() throws IOException {
        for (int i = 0; i < devices.length; i++) {
            try {
                devices[i].flush();
            } catch (IOException e) {
                stats[i].writeErrors.incrementAndGet();
                throw e;
            }
        }
    }

    /**
     * Reads and verifies a block, trying each copy; returns its logical bytes. File blocks come from and go
     * to the cache: the array returned may be shared and must not be modified.
     */
    public byte[] read(BlockPointer bp) throws IOException {
        if (bp.isHole()) throw new IllegalArgumentException("reading a hole");
        if (bp.type() != BlockType.FILE_DATA) return readCopies(bp);
        byte[] c = cache.get(bp);
        if (c != null) return c;
        byte[] out = null;
        boolean suspect = false; // read ahead, and that read was bad: on a mirror, maybe on a side the retry would not try
        Ahead key = ahead.isEmpty() ? null : Ahead.of(bp);
        CompletableFuture<Checked> f = key == null ? null : ahead.remove(key);
        if (f != null) {
            aheadBytes.addAndGet(-key.size());
            try {
                Checked got = f.get(60, TimeUnit.SECONDS);
                // checked against the pointer it was read for: the same place and birth, and the same checksum
                if (java.util.Arrays.equals(got.checksum(), bp.checksum())) {
                    out = got.bytes();
                    suspect = out == null;
                }
                if (out != null) aheadHits.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the ordinary path below retries, counts and reports the failure
                suspect = true;
            }
        }
        if (out == null) out = readCopies(bp, suspect);
        cache.put(bp, out);
        return out;
    }

    /**
     * The logical bytes of {@code raw} (the first copy, in the device's buffer) if its checksum matches, else
     * null: checked where it lies, then copied once (or decompressed).
     */
    static byte[] decodeStored(BlockPointer bp, java.lang.foreign.MemorySegment raw) {
        if (bp.psize() > raw.byteSize()) return null;
        if (bp.compression() != Compression.OFF) return decodeIfValid(bp, raw.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        if (!bp.checksumType().matches(bp.checksum(), raw.asSlice(0, bp.psize()).asByteBuffer())) return null;
        if (bp.lsize() > raw.byteSize()) return java.util.Arrays.copyOf(raw.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), bp.lsize());
        return raw.asSlice(0, bp.lsize()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    /** The logical bytes of {@code raw} (the first copy) if its checksum matches, else null. */
    static byte[] decodeIfValid(BlockPointer bp, byte[] raw) {
        if (bp.psize() > raw.length || !bp.checksumType().matches(bp.checksum(), raw, 0, bp.psize())) return null;
        if (bp.compression() == Compression.OFF) return raw.length == bp.lsize() ? raw : java.util.Arrays.copyOf(raw, bp.lsize());
        try {
            return bp.compression().decompress(raw, bp.psize(), bp.lsize());
        } catch (FormatException e) {
            return null;
        }
    }

    /**
     * A window that reads and checks single-copy pointers (`pool verify`'s file blocks), many in flight, counting
     * errors per device as reads do; {@code done} gets each pointer with null or what is wrong.
     */
    public VerifyWindow verifyWindow(java.util.function.BiConsumer<BlockPointer, String> done) {
        return new VerifyWindow(this, done);
    }

    /**
     * Starts reading single-copy pointers stored one after another on one device ({@link #follows}) by one read;
     * each block's check (checksum, decompression) runs on {@link #CHECKERS}. One future per block, in order.
     */
    List<CompletableFuture<String>> checkRunAsync(List<BlockPointer> run) {
        List<CompletableFuture<String>> out = new ArrayList<>(run.size());
        if (run.getFirst().dvas()[0].device() >= devices.length) {
            for (BlockPointer bp : run) {
                out.add(CompletableFuture.completedFuture(new FormatException("block pointer names device " + bp.dvas()[0].device()).getMessage()));
            }
            return out;
        }
        List<CompletableFuture<Boolean>> reads = readRun(run, BlockIo::validStored);
        for (int i = 0; i < run.size(); i++) {
            BlockPointer bp = run.get(i);
            // a merged read that failed (EIO on one sector, a short read) says nothing of each block in it: each is
            // read again on its own, so that only the blocks that fail alone are reported and counted
            out.add(reads.get(i).handle((ok, err) -> err != null && run.size() > 1
                    ? checkRunAsync(List.of(bp)).getFirst()
                    : CompletableFuture.completedFuture(check(bp, ok, err))).thenCompose(c -> c));
        }
        return out;
    }

    /**
     * Whether {@code raw} (a read in the device's buffer) holds {@code bp}: its checksum matches and, compressed,
     * it decompresses. Uncompressed blocks are checked where they lie; compressed ones are copied to decompress.
     */
    static boolean validStored(BlockPointer bp, java.lang.foreign.MemorySegment raw) {
        if (bp.psize() > raw.byteSize()) return false;
        if (bp.compression() != Compression.OFF) return decodeIfValid(bp, raw.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)) != null;
        return bp.checksumType().matches(bp.checksum(), raw.asSlice(0, bp.psize()).asByteBuffer());
    }

    /** Null if the read was good (or the mirror's other sides hold {@code bp}), else what is wrong, counted on the device. */
    private String check(BlockPointer bp, Boolean ok, Throwable err) {
        Dva d = bp.dvas()[0];
        String why;
        if (err != null) {
            Throwable c = err instanceof java.util.concurrent.CompletionException && err.getCause() != null ? err.getCause() : err;
            why = c.getMessage() != null ? c.getMessage() : c.toString();
        } else {
            why = ok ? null : "checksum mismatch";
        }
        if (why != null && devices[d.device()] instanceof MirrorDevice m) {
            // one side's copy is bad: the block is fine if another side has it (and that side heals this one)
            if (m.readVerified(d.offset(), (int) d.asize(), r -> matches(bp, r), () -> allocator.isAllocated(d), true) != null) why = null;
            else why = "no side of the mirror holds a good copy (" + why + ")";
        } else if (why != null && err != null) {
            stats[d.device()].readErrors.incrementAndGet();
        } else if (why != null) {
            stats[d.device()].checksumErrors.incrementAndGet();
        }
        return why;
    }

    /** Counts a read of {@code d} that never answered. */
    void readFailed(Dva d) {
        if (d.device() < devices.length) stats[d.device()].readErrors.incrementAndGet();
    }

    /** True when {@code raw} holds {@code bp}'s stored bytes (its checksum matches). */
    static boolean matches(BlockPointer bp, byte[] raw) {
        return bp.psize() <= raw.length && bp.checksumType().matches(bp.checksum(), raw, 0, bp.psize());
    }

    /** Reads and verifies from the devices (or blocks still being written), never from the cache: `pool verify`. */
    public byte[] readUncached(BlockPointer bp) throws IOException {
        return readCopies(bp);
    }

    private byte[] readCopies(BlockPointer bp) throws IOException {
        return readCopies(bp, false);
    }

    /**
     * Tries each copy (and each side of a mirror) until one matches the checksum; copies that failed before it
     * are rewritten with the good bytes (self-healing; DESIGN.md, "Mirrors"). {@code suspect}: an earlier read of
     * the first copy was bad on a mirror side this read might not start on, so every side of that mirror is read
     * ({@link MirrorDevice#readVerified(long, int, java.util.function.Predicate, java.util.function.BooleanSupplier, boolean)}).
     */
    private byte[] readCopies(BlockPointer bp, boolean suspect) throws IOException {
        IOException last = null;
        List<Dva> bad = null;
        Dva[] copies = bp.dvas();
        for (int c = 0; c < copies.length; c++) {
            Dva d = copies[c];
            if (d.isEmpty()) continue;
            if (d.device() >= devices.length) {
                last = new FormatException("block pointer names device " + d.device() + " of " + devices.length);
                continue;
            }
            byte[] raw = pending.get(place(d.device(), d.offset()));
            if (raw != null && raw.length < d.asize()) raw = null;
            boolean verified = false; // a mirror's copy was checked side by side: not checksummed again
            if (raw == null && devices[d.device()] instanceof MirrorDevice m) {
                raw = m.readVerified(d.offset(), (int) d.asize(), r -> matches(bp, r), () -> allocator.isAllocated(d),
                        suspect && c == 0); // read ahead is of the first copy
                if (raw == null) {
                    last = new ChecksumException("no side of " + m.name() + " holds a good copy of the " + bp.type()
                            + " block at " + d.offset());
                    bad = Healing.add(bad, d);
                    continue;
                }
                verified = true;
            }
            try {
                if (raw == null) {
                    raw = new byte[(int) d.asize()];
                    devices[d.device()].read(d.offset(), raw, 0, raw.length);
                }
            } catch (IOException e) {
                stats[d.device()].readErrors.incrementAndGet();
                last = e;
                bad = Healing.add(bad, d);
                continue;
            }
            if (!verified && !matches(bp, raw)) {
                stats[d.device()].checksumErrors.incrementAndGet();
                last = new ChecksumException("checksum mismatch in " + bp.type() + " block at "
                        + devices[d.device()].name() + ":" + d.offset());
                bad = Healing.add(bad, d);
                continue;
            }
            if (bad != null) Healing.rewrite(this, bad, raw);
            if (bp.compression() == Compression.OFF) {
                // a pending array is shared as is: nobody changes a block once it is queued
                return raw.length == bp.lsize() ? raw : java.util.Arrays.copyOf(raw, bp.lsize());
            }
            try {
                return bp.compression().decompress(raw, bp.psize(), bp.lsize());
            } catch (FormatException e) {
                stats[d.device()].checksumErrors.incrementAndGet();
                last = e;
            }
        }
        throw last instanceof ChecksumException ? last : new ChecksumException("unreadable " + bp + ": " + last.getMessage());
    }
}
