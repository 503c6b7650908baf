package dev.ringfuse.stats;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Latencies in nanoseconds, in quarter-octave buckets (each power of two split in four, so a quantile is
 * within 19% of the truth), counted with atomic increments: no lock, no allocation. Values below 8 ns
 * get one bucket each.
 */
final class LatencyHistogram {
    static final int BUCKETS = 248;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final AtomicLong max = new AtomicLong();

    void record(long nanos) {
        long v = Math.max(0, nanos);
        counts.incrementAndGet(bucket(v));
        long m = max.get();
        while (v > m && !max.compareAndSet(m, v)) m = max.get();
    }

    static int bucket(long v) {
        if (v < 8) return (int) v;
        int e = 63 - Long.numberOfLeadingZeros(v);
        return (e - 1) * 4 + (int) ((v >>> (e - 2)) & 3);
    }

    /** The upper bound (exclusive) of bucket {@code b}. */
    static long upper(int b) {
        if (b < 8) return b + 1;
        int e = b / 4 + 1;
        long width = 1L << (e - 2);
        return (1L << e) + (b % 4) * width + width;
    }

    long max() { return max.get(); }

    /** The {@code q} quantile (0..1), as the upper bound of its bucket, never above the maximum; 0 if empty. */
    long quantile(double q) {
        long[] c = new long[BUCKETS];
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) total += c[i] = counts.get(i);
        if (total == 0) return 0;
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += c[i];
            if (seen >= rank && c[i] > 0) return Math.min(upper(i), max());
        }
        return max();
    }
}
