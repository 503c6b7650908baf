package dev.ringfuse.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** One snapshot of a mount's statistics, parsed from the text its statistics socket writes. */
record StatsSnapshot(Map<String, String> info, List<Op> ops) {

    /** One opcode's counters; latencies in nanoseconds. */
    record Op(String name, long count, long errors, long bytesIn, long bytesOut, long sumNanos, long p50, long p99, long max) {}

    static StatsSnapshot parse(String text) {
        String[] lines = text.split("\n");
        if (lines.length == 0 || !lines[0].equals("ringfuse-stats 1")) {
            throw new IllegalArgumentException("not a ringfuse statistics snapshot (version line: "
                    + (lines.length == 0 ? "none" : lines[0]) + ")");
        }
        Map<String, String> info = new LinkedHashMap<>();
        List<Op> ops = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String l = lines[i];
            int sp = l.indexOf(' ');
            if (sp < 0) continue;
            String key = l.substring(0, sp);
            if (key.equals("op")) {
                String[] f = l.split(" ");
                ops.add(new Op(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]),
                        Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9])));
            } else {
                info.put(key, l.substring(sp + 1));
            }
        }
        return new StatsSnapshot(info, ops);
    }

    long inFlight() { return Long.parseLong(info.getOrDefault("inflight", "0")); }
    long uptimeNanos() { return Long.parseLong(info.getOrDefault("uptime_ns", "0")); }

    /** A top-like table; rates are against {@code previous} (null for none). */
    String table(StatsSnapshot previous) {
        StringBuilder b = new StringBuilder();
        long total = ops.stream().mapToLong(Op::count).sum();
        b.append(String.format(Locale.ROOT, "ringfuse %s  transport %s (%s)  pid %s  up %s  requests %d  in flight %d%n%n",
                info.get("mountpoint"), info.get("transport"), info.get("serving"), info.get("pid"),
                duration(uptimeNanos()), total, inFlight()));
        b.append(String.format(Locale.ROOT, "%-16s %12s %9s %9s %10s %10s %10s %10s %10s%n",
                "OPCODE", "COUNT", "RATE/s", "ERRORS", "IN", "OUT", "P50", "P99", "MAX"));
        double secs = previous == null ? 0 : (uptimeNanos() - previous.uptimeNanos()) / 1e9;
        List<Op> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingLong(Op::count).reversed());
        for (Op o : sorted) {
            String rate = "-";
            if (secs > 0) {
                long before = previous.ops.stream().filter(p -> p.name.equals(o.name)).mapToLong(Op::count).sum();
                rate = String.format(Locale.ROOT, "%.0f", (o.count - before) / secs);
            }
            b.append(String.format(Locale.ROOT, "%-16s %12d %9s %9d %10s %10s %10s %10s %10s%n", o.name, o.count, rate,
                    o.errors, bytes(o.bytesIn), bytes(o.bytesOut), latency(o.p50), latency(o.p99), latency(o.max)));
        }
        // the serving threads' adaptive polling (transport.AdaptiveSpin), as the server wrote it: one line each, then the sum
        boolean first = true;
        for (Map.Entry<String, String> e : info.entrySet()) {
            if (!e.getKey().equals("spin") && !e.getKey().startsWith("spin.")) continue;
            if (first) b.append(String.format(Locale.ROOT, "%npolling (counters since the mount, as of each thread's last window of 32 requests)%n"));
            first = false;
            b.append(String.format(Locale.ROOT, "%-8s %s%n", e.getKey().equals("spin") ? "all" : e.getKey().substring(5), e.getValue()));
        }
        // the process's keep-awake threads (transport.KeepAwake), io_uring mounts that poll
        String keep = info.get("keepawake");
        if (keep != null) b.append(String.format(Locale.ROOT, "keep-awake %s%n", keep));
        // the process's CPU latency request (transport.LatencyHint)
        String hint = info.get("latencyhint");
        if (hint != null) b.append(String.format(Locale.ROOT, "latency-request %s%n", hint));
        return b.toString();
    }

    String json() {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, String> e : info.entrySet()) {
            b.append(quote(e.getKey())).append(':');
            boolean number = e.getValue().matches("-?[0-9]+") && !e.getKey().equals("mountpoint");
            b.append(number ? e.getValue() : quote(e.getValue())).append(',');
        }
        b.append("\"ops\":[");
        for (int i = 0; i < ops.size(); i++) {
            Op o = ops.get(i);
            if (i > 0) b.append(',');
            b.append(String.format(Locale.ROOT, "{\"op\":%s,\"count\":%d,\"errors\":%d,\"bytes_in\":%d,\"bytes_out\":%d,"
                    + "\"sum_ns\":%d,\"p50_ns\":%d,\"p99_ns\":%d,\"max_ns\":%d}", quote(o.name), o.count, o.errors,
                    o.bytesIn, o.bytesOut, o.sumNanos, o.p50, o.p99, o.max));
        }
        return b.append("]}").toString();
    }

    /** The Prometheus text exposition format (version 0.0.4). */
    String prometheus() {
        String mnt = "mountpoint=" + quote(info.getOrDefault("mountpoint", ""));
        StringBuilder b = new StringBuilder();
        counter(b, "ringfuse_requests_total", "FUSE requests answered", mnt, Op::count);
        counter(b, "ringfuse_request_errors_total", "FUSE requests answered with an error", mnt, Op::errors);
        counter(b, "ringfuse_request_bytes_in_total", "Bytes of FUSE requests, headers included", mnt, Op::bytesIn);
        counter(b, "ringfuse_request_bytes_out_total", "Bytes of FUSE replies, headers included", mnt, Op::bytesOut);
        b.append("# HELP ringfuse_request_duration_seconds FUSE request latency, from read to reply\n");
        b.append("# TYPE ringfuse_request_duration_seconds summary\n");
        for (Op o : ops) {
            String l = mnt + ",op=\"" + o.name + "\"";
            b.append("ringfuse_request_duration_seconds{").append(l).append(",quantile=\"0.5\"} ").append(seconds(o.p50)).append('\n');
            b.append("ringfuse_request_duration_seconds{").append(l).append(",quantile=\"0.99\"} ").append(seconds(o.p99)).append('\n');
            b.append("ringfuse_request_duration_seconds_sum{").append(l).append("} ").append(seconds(o.sumNanos)).append('\n');
            b.append("ringfuse_request_duration_seconds_count{").append(l).append("} ").append(o.count).append('\n');
        }
        b.append("# HELP ringfuse_request_duration_max_seconds Longest FUSE request since the mount\n");
        b.append("# TYPE ringfuse_request_duration_max_seconds gauge\n");
        for (Op o : ops) {
            b.append("ringfuse_request_duration_max_seconds{").append(mnt).append(",op=\"").append(o.name).append("\"} ")
                    .append(seconds(o.max)).append('\n');
        }
        b.append("# HELP ringfuse_requests_in_flight FUSE requests being served now\n");
        b.append("# TYPE ringfuse_requests_in_flight gauge\n");
        b.append("ringfuse_requests_in_flight{").append(mnt).append("} ").append(inFlight()).append('\n');
        return b.toString();
    }

    private void counter(StringBuilder b, String name, String help, String mnt, java.util.function.ToLongFunction<Op> f) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" counter\n");
        for (Op o : ops) b.append(name).append('{').append(mnt).append(",op=\"").append(o.name).append("\"} ").append(f.applyAsLong(o)).append('\n');
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.9f", nanos / 1e9);
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    static String latency(long ns) {
        if (ns < 10_000) return ns + "ns";
        if (ns < 10_000_000) return String.format(Locale.ROOT, "%.1fus", ns / 1e3);
        if (ns < 10_000_000_000L) return String.format(Locale.ROOT, "%.1fms", ns / 1e6);
        return String.format(Locale.ROOT, "%.1fs", ns / 1e9);
    }

    static String bytes(long n) {
        if (n < 10_000) return n + "B";
        if (n < 10_000_000) return String.format(Locale.ROOT, "%.1fK", n / 1024.0);
        if (n < 10_000_000_000L) return String.format(Locale.ROOT, "%.1fM", n / 1048576.0);
        return String.format(Locale.ROOT, "%.1fG", n / 1073741824.0);
    }

    private static String duration(long ns) {
        long s = ns / 1_000_000_000L;
        return s < 3600 ? String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
}
