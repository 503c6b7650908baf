package dev.ringfuse.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Aggregates rows over rounds (median, min, max) and computes ratios to FileChannel on the same workload. */
final class ResultTable {
    /** Requests in flight in the headline, over all threads: rings × depth for io_uring, threads for FileChannel. */
    static final int HEADLINE_DEPTH = 32;
    private final List<Row> rows;
    private final int threads;

    /** One configuration with all its measurements. */
    private record Line(Row first, double median, double min, double max, int samples, double cpuNsPerOp) {
        boolean sameWorkload(Line o) {
            return first.sameWorkload(o.first);
        }
    }

    ResultTable(List<Row> rows, int threads) {
        this.rows = rows;
        this.threads = threads;
    }

    private List<Line> lines() {
        Map<String, List<Row>> byKey = rows.stream().collect(Collectors.groupingBy(Row::key, LinkedHashMap::new,
                Collectors.toList()));
        List<Line> out = new ArrayList<>();
        for (List<Row> rs : byKey.values()) {
            double[] v = rs.stream().mapToDouble(Row::opsPerSec).sorted().toArray();
            double[] cpu = rs.stream().mapToDouble(Row::cpuNsPerOp).filter(d -> !Double.isNaN(d)).sorted().toArray();
            out.add(new Line(rs.getFirst(), median(v), v[0], v[v.length - 1], v.length,
                    cpu.length == 0 ? Double.NaN : median(cpu)));
        }
        out.sort(Comparator.comparing((Line l) -> l.first.op()).thenComparing(l -> l.first.direct())
                .thenComparingInt(l -> l.first.size()).thenComparing(l -> l.first.engine())
                .thenComparingInt(l -> l.first.qd()));
        return out;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    void print(PrintStream out) {
        List<Line> lines = lines();
        out.printf("%-6s %-6s %5s  %-20s %4s %4s %12s %23s %9s %7s %9s%n",
                "op", "cache", "size", "engine", "qd", "thr", "ops/s", "(min-max, n)", "MiB/s", "vs FC", "CPU us/op");
        for (Line l : lines) {
            Row r = l.first;
            Optional<Line> base = lines.stream().filter(b -> b.first.engine().equals("FileChannel")
                    && b.first.threads() == threads && b.sameWorkload(l)).findFirst();
            String ratio = base.map(b -> String.format("%.2fx", l.median / b.median)).orElse("n/a");
            String range = l.samples == 1 ? "" : String.format("(%,.0f-%,.0f, %d)", l.min, l.max, l.samples);
            out.printf("%-6s %-6s %5s  %-20s %4d %4d %,12.0f %23s %9.1f %7s %9.2f%n",
                    r.op(), r.direct() ? "direct" : "page", size(r.size()), r.engine(), r.qd(), r.threads(),
                    l.median, range, l.median * r.size() / (1 << 20), ratio, l.cpuNsPerOp / 1000);
        }
    }

    private static String size(int bytes) {
        return bytes >= 1024 ? (bytes / 1024) + "k" : bytes + "B";
    }

    /**
     * Per headline round: io_uring with 32 requests in flight over all its rings divided by the better FileChannel
     * figure of the same round (the benchmark thread count, or 32 blocking threads = 32 in flight), 4 KiB random
     * I/O; NaN where a figure is missing.
     */
    List<Double> headlineRatios(String op, boolean direct) {
        return headlineRatios(op, direct, Row::opsPerSec);
    }

    /**
     * Per headline round: CPU per operation of the FileChannel configuration that spent least of it (2 or 32
     * threads) divided by io_uring's, i.e. how many more operations io_uring completes per CPU second. On a
     * shared machine this holds where ops/s do not: the scheduler gives 32 blocking threads more CPU than 2.
     */
    List<Double> headlineCpuRatios(String op, boolean direct) {
        return headlineRatios(op, direct, r -> 1 / r.cpuNsPerOp()); // operations per CPU ns: higher is better
    }

    /** Per headline round: io_uring's {@code score} over the best FileChannel one (higher is better); NaN if missing. */
    private List<Double> headlineRatios(String op, boolean direct, ToDoubleFunction<Row> score) {
        List<Double> ratios = new ArrayList<>();
        int last = rows.stream().mapToInt(Row::round).max().orElse(-1);
        for (int round = 0; round <= last; round++) {
            int rd = round;
            List<Row> inRound = rows.stream().filter(r -> r.round() == rd && r.op().equals(op)
                    && r.size() == 4096 && r.direct() == direct && !Double.isNaN(score.applyAsDouble(r))).toList();
            Optional<Row> uring = inRound.stream().filter(r -> r.engine().equals("uring")
                    && r.qd() * r.threads() == HEADLINE_DEPTH).findFirst();
            Optional<Row> fc = inRound.stream().filter(r -> r.engine().equals("FileChannel"))
                    .max(Comparator.comparingDouble(score));
            ratios.add(uring.isPresent() && fc.isPresent()
                    ? score.applyAsDouble(uring.get()) / score.applyAsDouble(fc.get()) : Double.NaN);
        }
        return ratios;
    }

    /** {@code <median>x   rounds: a b c}: the median of the per-round ratios that are there, and all of them. */
    private static String summary(List<Double> ratios) {
        double[] v = ratios.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).sorted().toArray();
        return (v.length == 0 ? "n/a" : String.format("%.2fx", median(v)))
                + "   rounds: " + ratios.stream().map(d -> String.format("%.2f", d)).collect(Collectors.joining(" "));
    }

    /** {@code ... ops per CPU second: <median>x  rounds: a b c}, the median of {@link #headlineCpuRatios}. */
    String cpuHeadline(String op, boolean direct) {
        return "uring/FileChannel 4k rand" + op + " qd32 (" + (direct ? "O_DIRECT" : "page cache")
                + ") ops per CPU second: " + summary(headlineCpuRatios(op, direct));
    }

    /**
     * {@code uring/FileChannel 4k rand<op> qd32 (<cache>): <median>x  rounds: a b c}, the median over the headline
     * rounds of {@link #headlineRatios}. The O_DIRECT read line keeps its historical form (no cache label).
     */
    String headline(String op, boolean direct) {
        String label = op.equals("read") && direct ? "" : direct ? " (O_DIRECT)" : " (page cache)";
        return "uring/FileChannel 4k rand" + op + " qd32" + label + ": " + summary(headlineRatios(op, direct));
    }
}
