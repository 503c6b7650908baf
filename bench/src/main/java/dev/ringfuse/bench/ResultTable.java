package dev.ringfuse.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** Aggregates rows over rounds (median, min, max) and computes ratios to FileChannel on the same workload. */
final class ResultTable {
    private final List<Row> rows;
    private final int threads;

    /** One configuration with all its measurements. */
    private record Line(Row first, double median, double min, double max, int samples) {
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
            out.add(new Line(rs.getFirst(), median(v), v[0], v[v.length - 1], v.length));
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
        out.printf("%-6s %-6s %5s  %-20s %4s %4s %12s %23s %9s %7s%n",
                "op", "cache", "size", "engine", "qd", "thr", "ops/s", "(min-max, n)", "MiB/s", "vs FC");
        for (Line l : lines) {
            Row r = l.first;
            Optional<Line> base = lines.stream().filter(b -> b.first.engine().equals("FileChannel")
                    && b.first.threads() == threads && b.sameWorkload(l)).findFirst();
            String ratio = base.map(b -> String.format("%.2fx", l.median / b.median)).orElse("n/a");
            String range = l.samples == 1 ? "" : String.format("(%,.0f-%,.0f, %d)", l.min, l.max, l.samples);
            out.printf("%-6s %-6s %5s  %-20s %4d %4d %,12.0f %23s %9.1f %7s%n",
                    r.op(), r.direct() ? "direct" : "page", size(r.size()), r.engine(), r.qd(), r.threads(),
                    l.median, range, l.median * r.size() / (1 << 20), ratio);
        }
    }

    private static String size(int bytes) {
        return bytes >= 1024 ? (bytes / 1024) + "k" : bytes + "B";
    }

    /**
     * Median over the headline rounds of: io_uring at depth 32 divided by the better FileChannel figure of the same
     * round (the benchmark thread count, or 32 blocking threads = depth 32), on 4 KiB random reads. The O_DIRECT
     * line carries no label and is printed last.
     */
    String headline(boolean direct) {
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; ; round++) {
            int rd = round;
            List<Row> inRound = rows.stream().filter(r -> r.round() == rd && r.op().equals("read")
                    && r.size() == 4096 && r.direct() == direct).toList();
            if (inRound.isEmpty() && rows.stream().noneMatch(r -> r.round() > rd)) break;
            Optional<Row> uring = inRound.stream().filter(r -> r.engine().equals("uring") && r.qd() == 32).findFirst();
            Optional<Row> fc = inRound.stream().filter(r -> r.engine().equals("FileChannel"))
                    .max(Comparator.comparingDouble(Row::opsPerSec));
            if (uring.isPresent() && fc.isPresent()) ratios.add(uring.get().opsPerSec() / fc.get().opsPerSec());
        }
        String ratio = ratios.isEmpty() ? "n/a"
                : String.format("%.2fx", median(ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray()));
        return "uring/FileChannel 4k randread qd32" + (direct ? "" : " (page cache)") + ": " + ratio;
    }
}
