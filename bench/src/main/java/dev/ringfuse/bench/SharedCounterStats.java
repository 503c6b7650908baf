package dev.ringfuse.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The statistics as core recorded them before the per-thread stripes (492b823): five {@code LongAdder}s
 * and one shared {@code AtomicLongArray} histogram per opcode. Kept here only so that {@link ObserveBench}
 * can measure both designs in one run.
 */
final class SharedCounterStats {
    private static final class Op {
        final LongAdder count = new LongAdder(), errors = new LongAdder(), bytesIn = new LongAdder(),
                bytesOut = new LongAdder(), sumNanos = new LongAdder();
        final AtomicLongArray buckets = new AtomicLongArray(248);
        final AtomicLong max = new AtomicLong();
    }

    private final Op[] ops;

    SharedCounterStats(int opcodes) {
        ops = new Op[opcodes];
        for (int i = 0; i < opcodes; i++) ops[i] = new Op();
    }

    void answered(int op, long nanos, int errno, long bytesIn, long bytesOut) {
        Op o = ops[op];
        o.count.increment();
        if (errno != 0) o.errors.increment();
        o.bytesIn.add(bytesIn);
        o.bytesOut.add(bytesOut);
        o.sumNanos.add(nanos);
        long v = Math.max(0, nanos);
        int e = 63 - Long.numberOfLeadingZeros(v);
        o.buckets.incrementAndGet(v < 8 ? (int) v : (e - 1) * 4 + (int) ((v >>> (e - 2)) & 3));
        long m = o.max.get();
        while (v > m && !o.max.compareAndSet(m, v)) m = o.max.get();
    }
}
