package dev.ringfuse.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * Counters of one mount's answered requests, by opcode: count, errors, bytes in and out, latency (from the
 * transport receiving the request to the reply handed back). Recording is lock-free and allocates nothing
 * after an opcode's first request on a thread; a snapshot is a few lines of text ({@link #snapshot}).
 *
 * <p>Every serving thread records into a stripe of its own (chosen by thread id), one {@code long[]} per
 * opcode holding the sums and the latency histogram ({@link LatencyHistogram}), so the threads of a busy mount
 * never write the same cache line: with one shared set of counters the two io_uring queue threads of a 2-CPU
 * machine bounced the histogram's line between CPUs on every request (docs/observability.md, "What it
 * costs"). The updates stay atomic, since a reply may also come from a filesystem's own thread, or two
 * threads may share a stripe; an uncontended atomic add on a line the CPU already holds is cheap. The count is
 * the histogram's total. A snapshot sums the stripes.
 */
public final class RequestStats {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[][].class);
    /** Slots of a cell: the sums first, then the histogram's buckets. */
    private static final int SUM_NANOS = 0, BYTES_IN = 1, BYTES_OUT = 2, ERRORS = 3, MAX = 4, BUCKETS = 8;
    private static final int CELL = BUCKETS + LatencyHistogram.BUCKETS;
    /** Stripes: a power of two, at least 4 per CPU (a /dev/fuse mount may run 4 readers per CPU). */
    static final int STRIPES = Math.min(256, Integer.highestOneBit(
            Math.max(1, Runtime.getRuntime().availableProcessors()) * 8 - 1));

    private final String[] names;
    /** Cell of opcode {@code op} in stripe {@code s} at {@code s * names.length + op}; null until first used. */
    private final long[][] cells;
    private final long started = System.nanoTime();

    /** @param names one name per opcode index the caller records under (the opcode enum's names) */
    public RequestStats(String[] names) {
        this.names = names.clone();
        this.cells = new long[STRIPES * names.length][];
    }

    /** The request with opcode index {@code op} was answered {@code errno} (0: success) after {@code nanos}. */
    public void answered(int op, long nanos, int errno, long bytesIn, long bytesOut) {
        if (op < 0 || op >= names.length) throw new IndexOutOfBoundsException("opcode index " + op);
        int i = ((int) Thread.currentThread().threadId() & (STRIPES - 1)) * names.length + op;
        long[] c = (long[]) CELLS.getAcquire(cells, i);
        if (c == null) c = create(i);
        long v = Math.max(0, nanos);
        LONGS.getAndAdd(c, BUCKETS + LatencyHistogram.bucket(v), 1L);
        LONGS.getAndAdd(c, SUM_NANOS, v);
        LONGS.getAndAdd(c, BYTES_IN, bytesIn);
        LONGS.getAndAdd(c, BYTES_OUT, bytesOut);
        if (errno != 0) LONGS.getAndAdd(c, ERRORS, 1L);
        long m = (long) LONGS.getOpaque(c, MAX);
        while (v > m) {
            long seen = (long) LONGS.compareAndExchange(c, MAX, m, v);
            if (seen == m) break;
            m = seen;
        }
    }

    private long[] create(int i) {
        long[] fresh = new long[CELL];
        long[] raced = (long[]) CELLS.compareAndExchangeRelease(cells, i, (long[]) null, fresh);
        return raced == null ? fresh : raced;
    }

    /** One opcode's counters, summed over the stripes; null if it was never answered. */
    private long[] merged(int op) {
        long[] sum = null;
        for (int s = 0; s < STRIPES; s++) {
            long[] c = (long[]) CELLS.getAcquire(cells, s * names.length + op);
            if (c == null) continue;
            if (sum == null) sum = new long[CELL];
            for (int k = 0; k < CELL; k++) {
                long x = (long) LONGS.getVolatile(c, k);
                sum[k] = k == MAX ? Math.max(sum[k], x) : sum[k] + x;
            }
        }
        return sum;
    }

    private static long count(long[] merged) {
        long n = 0;
        for (int b = 0; b < LatencyHistogram.BUCKETS; b++) n += merged[BUCKETS + b];
        return n;
    }

    /** Requests answered so far, all opcodes. */
    public long total() {
        long t = 0;
        for (int op = 0; op < names.length; op++) {
            long[] m = merged(op);
            if (m != null) t += count(m);
        }
        return t;
    }

    /**
     * The text snapshot {@code ringfuse stats} reads: a version line, {@code key value} lines (the value is
     * the rest of the line), then one line per opcode that was seen:
     * {@code op NAME count errors bytes_in bytes_out sum_ns p50_ns p99_ns max_ns}.
     */
    public String snapshot(String mountpoint, String transport, String serving, int inFlight) {
        return snapshot(mountpoint, transport, serving, inFlight, "");
    }

    /**
     * The snapshot with {@code extra}, whole {@code key value} lines from the transport (its polling counters),
     * after the mount's own.
     */
    public String snapshot(String mountpoint, String transport, String serving, int inFlight, String extra) {
        StringBuilder b = new StringBuilder(1024);
        b.append("ringfuse-stats 1\n");
        b.append("pid ").append(ProcessHandle.current().pid()).append('\n');
        b.append("transport ").append(transport).append('\n');
        b.append("serving ").append(serving).append('\n');
        b.append("uptime_ns ").append(System.nanoTime() - started).append('\n');
        b.append("inflight ").append(inFlight).append('\n');
        b.append("mountpoint ").append(mountpoint.replace("\n", "\\n")).append('\n');
        b.append(extra);
        for (int i = 0; i < names.length; i++) {
            long[] m = merged(i);
            if (m == null) continue;
            long n = count(m);
            if (n == 0) continue;
            long[] buckets = java.util.Arrays.copyOfRange(m, BUCKETS, CELL);
            b.append(String.format(Locale.ROOT, "op %s %d %d %d %d %d %d %d %d%n", names[i], n, m[ERRORS],
                    m[BYTES_IN], m[BYTES_OUT], m[SUM_NANOS], LatencyHistogram.quantile(buckets, 0.5, m[MAX]),
                    LatencyHistogram.quantile(buckets, 0.99, m[MAX]), m[MAX]));
        }
        return b.toString();
    }
}
