package dev.ringfuse.stats;

/**
 * The bucket scheme of the latency histograms {@link RequestStats} keeps: nanoseconds in quarter-octave
 * buckets (each power of two split in four, so a quantile is within 19% of the truth); values below 8 ns get
 * one bucket each. The counts themselves live in {@link RequestStats}'s per-thread cells.
 */
final class LatencyHistogram {
    static final int BUCKETS = 248;

    private LatencyHistogram() {}

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

    /**
     * The {@code q} quantile (0..1) of the histogram {@code counts}, as the upper bound of its bucket, never
     * above {@code max}; 0 if empty.
     */
    static long quantile(long[] counts, double q, long max) {
        long total = 0;
        for (long c : counts) total += c;
        if (total == 0) return 0;
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank && counts[i] > 0) return Math.min(upper(i), max);
        }
        return max;
    }
}
