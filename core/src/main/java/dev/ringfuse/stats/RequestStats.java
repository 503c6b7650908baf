package dev.ringfuse.stats;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one mount's answered requests, by opcode: count, errors, bytes in and out, latency (from the
 * session receiving the request to the reply handed back). Recording is lock-free and allocates nothing;
 * a snapshot is a few lines of text ({@link #snapshot}).
 */
public final class RequestStats {
    private final String[] names;
    private final Op[] ops;
    private final long started = System.nanoTime();

    private static final class Op {
        final LongAdder count = new LongAdder(), errors = new LongAdder(), bytesIn = new LongAdder(),
                bytesOut = new LongAdder(), sumNanos = new LongAdder();
        final LatencyHistogram latency = new LatencyHistogram();
    }

    /** @param names one name per opcode index the caller records under (the opcode enum's names) */
    public RequestStats(String[] names) {
        this.names = names.clone();
        this.ops = new Op[names.length];
        for (int i = 0; i < ops.length; i++) ops[i] = new Op();
    }

    /** The request with opcode index {@code op} was answered {@code errno} (0: success) after {@code nanos}. */
    public void answered(int op, long nanos, int errno, long bytesIn, long bytesOut) {
        Op o = ops[op];
        o.count.increment();
        if (errno != 0) o.errors.increment();
        o.bytesIn.add(bytesIn);
        o.bytesOut.add(bytesOut);
        o.sumNanos.add(nanos);
        o.latency.record(nanos);
    }

    /** Requests answered so far, all opcodes. */
    public long total() {
        long t = 0;
        for (Op o : ops) t += o.count.sum();
        return t;
    }

    /**
     * The text snapshot {@code ringfuse stats} reads: a version line, {@code key value} lines (the value is
     * the rest of the line), then one line per opcode that was seen:
     * {@code op NAME count errors bytes_in bytes_out sum_ns p50_ns p99_ns max_ns}.
     */
    public String snapshot(String mountpoint, String transport, String serving, int inFlight) {
        StringBuilder b = new StringBuilder(1024);
        b.append("ringfuse-stats 1\n");
        b.append("pid ").append(ProcessHandle.current().pid()).append('\n');
        b.append("transport ").append(transport).append('\n');
        b.append("serving ").append(serving).append('\n');
        b.append("uptime_ns ").append(System.nanoTime() - started).append('\n');
        b.append("inflight ").append(inFlight).append('\n');
        b.append("mountpoint ").append(mountpoint.replace("\n", "\\n")).append('\n');
        for (int i = 0; i < ops.length; i++) {
            Op o = ops[i];
            long n = o.count.sum();
            if (n == 0) continue;
            b.append(String.format(Locale.ROOT, "op %s %d %d %d %d %d %d %d %d%n", names[i], n, o.errors.sum(),
                    o.bytesIn.sum(), o.bytesOut.sum(), o.sumNanos.sum(), o.latency.quantile(0.5),
                    o.latency.quantile(0.99), o.latency.max()));
        }
        return b.toString();
    }
}
