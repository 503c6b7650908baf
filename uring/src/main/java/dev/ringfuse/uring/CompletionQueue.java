package dev.ringfuse.uring;


import dev.ringfuse.uring.internal.Abi;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The completion side of a ring: the mmap'd CQ ring (head, tail, overflow counter, CQE array).
 * Owned by one thread; the kernel writes the tail, we write the head.
 */
final class CompletionQueue {
    private final MemorySegment ring;
    private final long khead, ktail, koverflow, cqes;
    private final int mask;
    private final int entries;
    private final int cqeShift;   // 4 for 16-byte CQEs, 5 for CQE32
    private int head;             // our copy: only this thread stores the shared head

    public CompletionQueue(MemorySegment ring, MemorySegment cqOff, boolean cqe32) {
        this.ring = ring;
        this.khead = cqOff.get(JAVA_INT, Abi.CQOFF_HEAD);
        this.ktail = cqOff.get(JAVA_INT, Abi.CQOFF_TAIL);
        this.koverflow = cqOff.get(JAVA_INT, Abi.CQOFF_OVERFLOW);
        this.cqes = cqOff.get(JAVA_INT, Abi.CQOFF_CQES);
        this.mask = ring.get(JAVA_INT, cqOff.get(JAVA_INT, Abi.CQOFF_RING_MASK));
        this.entries = ring.get(JAVA_INT, cqOff.get(JAVA_INT, Abi.CQOFF_RING_ENTRIES));
        this.cqeShift = cqe32 ? 5 : 4;
        this.head = ring.get(JAVA_INT, khead);
    }

    public int entries() {
        return entries;
    }

    /** Completions waiting in the ring. Mirrors liburing's {@code io_uring_cq_ready}. */
    public int ready() {
        // io_uring_cq_ready: io_uring_smp_load_acquire(ring->cq.ktail).
        return (int) Abi.U32.getAcquire(ring, ktail) - head;
    }

    /** Completions the kernel had to drop (no NODROP) or defer to its overflow list. */
    public int overflow() {
        return (int) Abi.U32.getAcquire(ring, koverflow);
    }

    /**
     * Hands up to {@code max} completions to {@code handler} and then releases their slots to the kernel.
     * A handler that throws still consumes its entry (so it is never redelivered); entries after it stay.
     * Mirrors liburing's {@code io_uring_for_each_cqe} + {@code io_uring_cq_advance}.
     */
    public int reap(CompletionHandler handler, int max) {
        // io_uring_for_each_cqe: io_uring_smp_load_acquire(ring->cq.ktail) — CQE bodies are visible after it.
        int tail = (int) Abi.U32.getAcquire(ring, ktail);
        int h = head;
        int n = 0;
        try {
            while (h != tail && n < max) {
                long cqe = cqes + ((long) (h & mask) << cqeShift);
                long userData = ring.get(JAVA_LONG, cqe + Abi.CQE_USER_DATA);
                int res = ring.get(JAVA_INT, cqe + Abi.CQE_RES);
                int flags = ring.get(JAVA_INT, cqe + Abi.CQE_FLAGS);
                h++;
                n++;
                handler.onCompletion(userData, res, flags);
            }
        } finally {
            if (h != head) {
                head = h;
                // io_uring_cq_advance: io_uring_smp_store_release(cq->khead, head) — we are done reading the
                // CQEs before the kernel may overwrite them.
                Abi.U32.setRelease(ring, khead, h);
            }
        }
        return n;
    }
}
