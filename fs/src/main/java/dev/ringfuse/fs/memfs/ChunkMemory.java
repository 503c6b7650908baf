package dev.ringfuse.fs.memfs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Off-heap memory for file chunks: fixed-size slots carved out of large anonymous mappings ("slabs"), so that
 * file data does not live on the Java heap and goes back to the kernel the moment it is freed.
 *
 * <ul>
 *   <li>A slot handed out reads as zeros: a slab starts zeroed (anonymous mmap) and every freed slot, or page
 *       of a slot, is given back with {@code madvise(MADV_DONTNEED)}, after which the kernel maps zeros again.
 *       So resident memory (RSS) follows the pages actually written, not the peak.</li>
 *   <li>Except for a short while: a slot freed whole is kept resident ("warm", at most {@link #WARM_LIMIT}
 *       bytes of its written pages) for {@link #WARM_NANOS}, and the next allocate zeroes those of its pages
 *       the new owner asked for and gives the others back, so every resident page is counted somewhere.
 *       A page fault on fresh anonymous memory costs ~3 µs on this kind of machine against ~0.2 µs to zero a
 *       resident page (fs/DESIGN.md), so a file written after another was deleted, the usual churn of a tmpfs,
 *       does not fault again; a trimmer gives back what was not reused in time, so RSS still comes back.</li>
 *   <li>The slab is the unit of mmap, so a 3 GiB file costs 48 mappings of 64 MiB, not 49,152 (the kernel
 *       allows 65,530 mappings per process by default). A slab left without slots is unmapped, except one
 *       kept so that a create/delete loop does not map and unmap all the time.</li>
 *   <li>Each slab's segment belongs to its own shared arena whose close unmaps it. Closing a shared arena is a
 *       handshake with every thread, so a stray access to an unmapped slab is an {@link IllegalStateException}
 *       (answered EIO by the session), never a JVM crash.</li>
 * </ul>
 *
 * <p>Who may touch a slot: only the {@link ChunkStore} that got it, under its file's content lock (reads hold
 * it shared, every call that frees holds it exclusively), so no read can be copying out of a slot while it is
 * freed and handed to another file. Slot bookkeeping is under this object's monitor (a leaf lock); madvise
 * runs before the slot is back on the free list, so the next owner never sees it zapped late. The trimmer, the
 * one caller that can race a close (the MemFs's cleaner), madvises under the monitor, a batch at a time.
 */
final class ChunkMemory implements AutoCloseable {
    private static final long SLAB_BYTES = 64L << 20;
    private static final int PROT_READ = 1, PROT_WRITE = 2;
    private static final int MAP_PRIVATE = 2, MAP_ANONYMOUS = 0x20, MAP_NORESERVE = 0x4000;
    private static final int MADV_DONTNEED = 4, MADV_NOHUGEPAGE = 15;
    private static final long MAP_FAILED = -1;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = call("mmap",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = call("munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle MADVISE = call("madvise", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle MINCORE = call("mincore", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /** One mapping of {@code slots} chunk slots; {@code used} marks slots handed out. */
    static final class Slab {
        final Arena arena = Arena.ofShared();
        final MemorySegment segment;
        final long address;
        final long[] used;
        int inUse;

        Slab(long address, long bytes, int slots) {
            this.address = address;
            this.segment = MemorySegment.ofAddress(address).reinterpret(bytes, arena, s -> munmap(s.address(), s.byteSize()));
            this.used = new long[(slots + 63) / 64];
        }
    }

    /** A slot: its memory, and the slab to give it back to. */
    record Slot(MemorySegment memory, Slab slab, int index) {}

    /** Written pages kept resident after their slot was freed: at most this many bytes, per instance. */
    static final long WARM_LIMIT = 128L << 20;
    /** How long a warm slot waits for reuse before its pages go back to the kernel. */
    static final long WARM_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int PAGE = 4096;
    /** Warm slots given back per hold of the monitor: an allocate or free waits for at most this many madvise calls. */
    private static final int TRIM_BATCH = 64;
    /** The soonest a trim that stopped short runs again, so that a failing one does not spin. */
    private static final long MIN_RETRY = TimeUnit.MILLISECONDS.toNanos(10);
    /** One daemon thread for every instance's trim: a trim is a few madvise calls a second at most. */
    private static final ScheduledExecutorService TRIMMER = trimmer();

    /** A freed slot still resident: {@code dirty} has a bit for each page that may hold data. */
    private record Warm(Slot slot, long dirty, long freedAt) {}

    private final int chunkSize;
    private final int slotsPerSlab;
    private final List<Slab> slabs = new ArrayList<>();
    /** Slabs with no slot in use (at most one stays mapped). */
    private int empty;
    /** Where the last slot was found, to start the next search there. */
    private int cursor;
    private boolean closed;
    /** Warm slots, newest first (a reused slot is the one most likely still in the CPU's cache). */
    private final ArrayDeque<Warm> warm = new ArrayDeque<>();
    private final long warmLimit;
    private final long warmNanos;
    private long warmBytes;
    private boolean trimScheduled;

    ChunkMemory(int chunkSize) {
        this(chunkSize, WARM_LIMIT, WARM_NANOS);
    }

    /**
     * {@code warmLimit}: bytes of freed pages kept resident for reuse (0: every free gives them back at once);
     * {@code warmNanos}: how long they wait (tests take a long one so that a slow run still reuses them).
     */
    ChunkMemory(int chunkSize, long warmLimit, long warmNanos) {
        if (chunkSize > 64 * PAGE) throw new IllegalArgumentException("a slot has at most 64 pages: " + chunkSize);
        this.chunkSize = chunkSize;
        this.slotsPerSlab = (int) Math.max(1, SLAB_BYTES / chunkSize);
        this.warmLimit = warmLimit;
        this.warmNanos = warmNanos;
    }

    int chunkSize() { return chunkSize; }

    /**
     * A zeroed slot of {@link #chunkSize()} bytes. {@code wanted}: a bit for each page the caller is about to
     * count as allocated (write or reserve). A warm slot's pages outside it go back to the kernel here: zeroed
     * instead, they would stay resident while no file and no size= limit counted them. Throws
     * {@link OutOfMemoryError} if the kernel refuses a slab.
     */
    Slot allocate(long wanted) {
        Warm w;
        synchronized (this) {
            if (closed) throw new IllegalStateException("chunk memory closed");
            w = warm.pollFirst();
            if (w != null) warmBytes -= bytesOf(w.dirty());
        }
        if (w == null) return allocateCold();
        try {
            // the caller owns the slot from here on: outside the monitor
            zero(w.slot(), w.dirty() & wanted);
            discard(w.slot(), w.dirty() & ~wanted);
            return w.slot();
        } catch (RuntimeException | Error e) {
            requeue(w); // still resident with at most its dirty pages: the trimmer gives it back
            throw e;
        }
    }

    private Slot allocateCold() {
        synchronized (this) {
            if (closed) throw new IllegalStateException("chunk memory closed");
            for (int k = 0; k < slabs.size(); k++) {
                int i = (cursor + k) % slabs.size();
                Slab s = slabs.get(i);
                if (s.inUse < slotsPerSlab) {
                    cursor = i;
                    return take(s);
                }
            }
            Slab s = map();
            slabs.add(s);
            empty++; // counted as empty until take() below
            cursor = slabs.size() - 1;
            return take(s);
        }
    }

    /**
     * Gives a slot back. {@code dirty}: a bit for each page that may hold data (the slot's other pages must be
     * zero and not resident). Kept warm while there is room, else its pages go back to the kernel first.
     */
    void free(Slot slot, long dirty) {
        long bytes = bytesOf(dirty);
        if (bytes > 0 && bytes <= warmLimit) {
            boolean schedule = false;
            synchronized (this) {
                if (!closed && warmBytes + bytes <= warmLimit) {
                    warm.addFirst(new Warm(slot, dirty, System.nanoTime()));
                    warmBytes += bytes;
                    schedule = !trimScheduled;
                    trimScheduled = true;
                }
                else bytes = -1;
            }
            if (bytes >= 0) {
                if (schedule) TRIMMER.schedule(this::trim, warmNanos, TimeUnit.NANOSECONDS);
                return;
            }
        }
        free(slot);
    }

    /** Puts back a warm slot whose reuse failed, as the oldest, so that the trimmer gives it back. */
    private void requeue(Warm w) {
        boolean schedule;
        synchronized (this) {
            if (closed) return;
            warm.addLast(w);
            warmBytes += bytesOf(w.dirty());
            schedule = !trimScheduled;
            trimScheduled = true;
        }
        if (schedule) TRIMMER.schedule(this::trim, warmNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Gives back up to {@link #TRIM_BATCH} warm slots that waited {@code warmNanos}, then runs again at once
     * (more are due) or when the oldest is due; a trim that fails is logged and tried again later.
     *
     * <p>The madvise calls run under the monitor: close (the MemFs's cleaner, on another thread) unmaps the
     * slabs once it has set {@code closed} under the same monitor, so none can reach an address that was
     * unmapped and perhaps mapped again for something else. A slot leaves the queue only once its madvise
     * succeeded, so a failure never loses it. A slab left empty is unmapped after the monitor is released:
     * it is off the list by then, out of close's reach.
     */
    private void trim() {
        long next = warmNanos;
        List<Slab> unmap = new ArrayList<>();
        try {
            synchronized (this) {
                if (closed) {
                    trimScheduled = false;
                    return;
                }
                long now = System.nanoTime();
                int n = 0;
                for (Warm w; n < TRIM_BATCH && (w = warm.peekLast()) != null && now - w.freedAt() >= warmNanos; n++) {
                    discard(w.slot(), -1L);
                    warm.pollLast();
                    warmBytes -= bytesOf(w.dirty());
                    Slab s = unuse(w.slot());
                    if (s != null) unmap.add(s);
                }
                Warm oldest = warm.peekLast();
                next = n == TRIM_BATCH ? 0
                        : oldest == null ? -1 : Math.max(warmNanos - (now - oldest.freedAt()), MIN_RETRY);
                trimScheduled = next >= 0;
            }
        } catch (RuntimeException | Error e) {
            log("giving back freed memory failed", e);
        } finally {
            for (Slab s : unmap) {
                try {
                    s.arena.close();
                } catch (RuntimeException | Error e) {
                    log("unmapping a slab failed", e);
                }
            }
        }
        if (next >= 0) TRIMMER.schedule(this::trim, next, TimeUnit.NANOSECONDS);
    }

    /** Bytes held by warm slots, for tests. */
    synchronized long warmBytes() { return warmBytes; }

    private static long bytesOf(long pages) {
        return (long) Long.bitCount(pages) * PAGE;
    }

    /** Zeroes the pages of {@code pages}, run by run. */
    private static void zero(Slot slot, long pages) {
        for (long bits = pages; bits != 0; ) {
            int p = Long.numberOfTrailingZeros(bits), q = runEnd(bits, p);
            slot.memory().asSlice((long) p * PAGE, (long) (q - p) * PAGE).fill((byte) 0);
            bits = q == 64 ? 0 : bits & (-1L << q);
        }
    }

    /** Gives a slot back now; its pages go back to the kernel first. */
    void free(Slot slot) {
        discard(slot, -1L);
        Slab unmap;
        synchronized (this) {
            unmap = unuse(slot);
        }
        if (unmap != null) unmap.arena.close();
    }

    /** Marks a slot free; returns its slab if that is now to be unmapped (by the caller, outside the monitor). */
    private Slab unuse(Slot slot) {
        assert Thread.holdsLock(this);
        if (closed) return null;
        Slab s = slot.slab();
        s.used[slot.index() >>> 6] &= ~(1L << slot.index());
        if (--s.inUse > 0) return null;
        if (empty == 0) {
            empty++;
            return null;
        }
        slabs.remove(s);
        cursor = 0;
        return s;
    }

    /**
     * Returns the pages of {@code pages} (bit i: page i of the slot; bits past the slot ignored) to the kernel,
     * one madvise per run; they read as zeros after.
     */
    void discard(Slot slot, long pages) {
        long bits = chunkSize == 64 * PAGE ? pages : pages & ((1L << (chunkSize / PAGE)) - 1);
        while (bits != 0) {
            int p = Long.numberOfTrailingZeros(bits), q = runEnd(bits, p);
            madvise(slot.memory().address() + (long) p * PAGE, (long) (q - p) * PAGE);
            bits = q == 64 ? 0 : bits & (-1L << q);
        }
    }

    /** The end (exclusive, at most 64) of the run of set bits of {@code bits} that starts at bit {@code p}. */
    private static int runEnd(long bits, int p) {
        return Math.min(64, p + Long.numberOfTrailingZeros(~(bits >>> p)));
    }

    private static void madvise(long addr, long bytes) {
        int r;
        try {
            r = (int) MADVISE.invokeExact(addr, bytes, MADV_DONTNEED);
        } catch (Throwable t) {
            throw new IllegalStateException("madvise", t);
        }
        // DONTNEED on our own private anonymous mapping cannot fail; if it did, the pages would not read as zero
        if (r != 0) throw new IllegalStateException("madvise(MADV_DONTNEED) failed on chunk memory");
    }

    /** Bytes of chunk memory resident in RAM (mincore), warm slots included, for tests. */
    synchronized long residentBytes() {
        long pages = 0;
        try (Arena a = Arena.ofConfined()) {
            for (Slab s : slabs) {
                long n = s.segment.byteSize() / PAGE;
                MemorySegment vec = a.allocate(n);
                int r = (int) MINCORE.invokeExact(s.address, s.segment.byteSize(), vec.address());
                if (r != 0) throw new IllegalStateException("mincore failed");
                for (long i = 0; i < n; i++) pages += vec.get(JAVA_BYTE, i) & 1;
            }
        } catch (Throwable t) {
            throw new IllegalStateException("mincore", t);
        }
        return pages * PAGE;
    }

    /** Mappings held, for tests. */
    synchronized int slabCount() { return slabs.size(); }

    /** Unmaps every slab; any later access to a slot is an IllegalStateException. For the end of the mount. */
    @Override
    public void close() {
        List<Slab> all;
        synchronized (this) {
            if (closed) return;
            closed = true;
            all = List.copyOf(slabs);
            slabs.clear();
            warm.clear();
            warmBytes = 0;
        }
        for (Slab s : all) s.arena.close();
    }

    private Slot take(Slab s) {
        for (int w = 0; w < s.used.length; w++) {
            long free = ~s.used[w];
            if (free == 0) continue;
            int i = w * 64 + Long.numberOfTrailingZeros(free);
            if (i >= slotsPerSlab) break;
            s.used[w] |= 1L << i;
            if (s.inUse++ == 0) empty--;
            return new Slot(s.segment.asSlice((long) i * chunkSize, chunkSize), s, i);
        }
        throw new IllegalStateException("slab bookkeeping out of step");
    }

    private Slab map() {
        long bytes = (long) slotsPerSlab * chunkSize;
        long addr;
        try {
            addr = (long) MMAP.invokeExact(0L, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("mmap", t);
        }
        if (addr == MAP_FAILED || addr == 0) throw new OutOfMemoryError("mmap of " + bytes + " bytes for memfs chunks failed");
        try {
            // a huge page would make one written 4 KiB page of a small file cost 2 MiB; advisory, errors ignored
            int ignored = (int) MADVISE.invokeExact(addr, bytes, MADV_NOHUGEPAGE);
        } catch (Throwable t) {
            munmap(addr, bytes);
            throw new IllegalStateException("madvise", t);
        }
        return new Slab(addr, bytes, slotsPerSlab);
    }

    private static void munmap(long addr, long bytes) {
        try {
            int ignored = (int) MUNMAP.invokeExact(addr, bytes);
        } catch (Throwable t) {
            throw new IllegalStateException("munmap", t);
        }
    }

    private static void log(String what, Throwable t) {
        System.getLogger("dev.ringfuse.fs.memfs").log(System.Logger.Level.WARNING, "memfs: " + what, t);
    }

    private static ScheduledExecutorService trimmer() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "memfs-trim");
            t.setDaemon(true);
            return t;
        });
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    private static MethodHandle call(String name, FunctionDescriptor fd) {
        MemorySegment sym = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        return LINKER.downcallHandle(sym, fd);
    }
}
