package dev.ringfuse.uring.internal;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The submission side of a ring: the mmap'd SQ ring (head, tail, flags, array) and the SQE array.
 *
 * <p>Owned by one thread. {@code sqeTail} counts SQEs handed out to the caller, {@code sqeHead} the ones
 * already published to the kernel through the shared tail; both are free-running u32 compared with {@code !=}.
 */
public final class SubmissionQueue {
    private final MemorySegment ring;
    private final MemorySegment sqes;
    private final long khead, ktail, kflags, kdropped;
    private final int mask;
    private final int entries;
    private final long sqeSize;
    private int sqeHead;
    private int sqeTail;

    public SubmissionQueue(MemorySegment ring, MemorySegment sqOff, MemorySegment sqes, long sqeSize, boolean fillArray) {
        this.ring = ring;
        this.sqes = sqes;
        this.sqeSize = sqeSize;
        this.khead = sqOff.get(JAVA_INT, Abi.SQOFF_HEAD);
        this.ktail = sqOff.get(JAVA_INT, Abi.SQOFF_TAIL);
        this.kflags = sqOff.get(JAVA_INT, Abi.SQOFF_FLAGS);
        this.kdropped = sqOff.get(JAVA_INT, Abi.SQOFF_DROPPED);
        this.mask = ring.get(JAVA_INT, sqOff.get(JAVA_INT, Abi.SQOFF_RING_MASK));
        this.entries = ring.get(JAVA_INT, sqOff.get(JAVA_INT, Abi.SQOFF_RING_ENTRIES));
        if (fillArray) {
            // Like liburing's io_uring_setup_ring_pointers: map array slot i to SQE i once, since SQEs are
            // handed out in tail order the identity mapping stays correct forever.
            long array = sqOff.get(JAVA_INT, Abi.SQOFF_ARRAY);
            for (int i = 0; i < entries; i++) ring.set(JAVA_INT, array + 4L * i, i);
        }
        // Nobody else has touched the ring yet; plain reads suffice.
        this.sqeHead = this.sqeTail = ring.get(JAVA_INT, ktail);
    }

    public int entries() {
        return entries;
    }

    public long sqeSize() {
        return sqeSize;
    }

    public MemorySegment sqes() {
        return sqes;
    }

    /**
     * Byte offset (in {@link #sqes()}) of a fresh, zeroed SQE, or -1 if the ring is full. Mirrors
     * liburing's {@code _io_uring_get_sqe}.
     */
    public long next() {
        // io_uring_get_sqe: io_uring_smp_load_acquire(sq->khead) — the kernel releases consumed slots.
        int head = (int) Abi.U32.getAcquire(ring, khead);
        if (sqeTail - head >= entries) return -1;
        long off = (long) (sqeTail & mask) * sqeSize;
        sqeTail++;
        // Stale flags/buf_index/personality/file_index from the previous use would corrupt the command.
        for (long i = 0; i < sqeSize; i += 8) sqes.set(JAVA_LONG, off + i, 0L);
        return off;
    }

    /** SQEs handed out but not yet published with {@link #flush()}. */
    public int unflushed() {
        return sqeTail - sqeHead;
    }

    /** Free SQE slots right now. */
    public int space() {
        // io_uring_sq_space_left: acquire the kernel's head.
        return entries - (sqeTail - (int) Abi.U32.getAcquire(ring, khead));
    }

    /**
     * Publishes the handed-out SQEs to the kernel and returns how many the kernel has not consumed yet.
     * Mirrors liburing's {@code __io_uring_flush_sq}.
     */
    public int flush() {
        int tail = sqeTail;
        if (sqeHead != tail) {
            sqeHead = tail;
            // __io_uring_flush_sq: io_uring_smp_store_release(sq->ktail, tail) — SQE bodies before the tail.
            Abi.U32.setRelease(ring, ktail, tail);
        }
        // __io_uring_flush_sq: IO_URING_READ_ONCE(*sq->khead), acquire so SQPOLL progress is seen.
        return tail - (int) Abi.U32.getAcquire(ring, khead);
    }

    /** The SQ ring flags (NEED_WAKEUP, CQ_OVERFLOW, TASKRUN). */
    public int flags() {
        // io_uring_sq_ring_needs_enter / cq_ring_needs_flush: IO_URING_READ_ONCE(*sq->kflags).
        return (int) Abi.U32.getAcquire(ring, kflags);
    }

    /** The SQ flags after a full fence, for the SQPOLL NEED_WAKEUP check. */
    public int flagsAfterFullFence() {
        // sq_ring_needs_enter (SQPOLL): io_uring_smp_mb() orders the tail store before the flags load, else
        // the poller could go to sleep between them and never see our tail.
        VarHandle.fullFence();
        return (int) Abi.U32.getAcquire(ring, kflags);
    }

    /** Invalid SQEs the kernel dropped ({@code sq.dropped}). */
    public int dropped() {
        return (int) Abi.U32.getAcquire(ring, kdropped);
    }
}
