package dev.ringfuse.bench;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Formats the rows and computes each one's ratio to FileChannel on the same workload. */
final class ResultTable {
    private final List<Row> rows;
    private final int threads;

    ResultTable(List<Row> rows, int threads) {
        this.rows = rows.stream().sorted(Comparator.comparing(Row::op).thenComparing(Row::direct)
                .thenComparingInt(Row::size).thenComparing(Row::engine).thenComparingInt(Row::qd)).toList();
        this.threads = threads;
    }

    /** FileChannel with the benchmark thread count on the same workload: the baseline of every ratio. */
    private Optional<Row> baseline(Row r) {
        return rows.stream().filter(b -> b.engine().equals("FileChannel") && b.threads() == threads
                && b.sameWorkload(r)).findFirst();
    }

    void print(PrintStream out) {
        out.printf("%-6s %-6s %6s  %-20s %4s %4s %12s %9s %10s %9s%n",
                "op", "cache", "size", "engine", "qd", "thr", "ops/s", "±", "MiB/s", "vs FC");
        for (Row r : rows) {
            String ratio = baseline(r).map(b -> String.format("%.2fx", r.opsPerSec() / b.opsPerSec())).orElse("n/a");
            out.printf("%-6s %-6s %6s  %-20s %4d %4d %,12.0f %9.0f %10.1f %9s%n",
                    r.op(), r.direct() ? "direct" : "page", size(r.size()), r.engine(), r.qd(), r.threads(),
                    r.opsPerSec(), r.error(), r.mibPerSec(), ratio);
        }
    }

    private static String size(int bytes) {
        return bytes >= 1024 ? (bytes / 1024) + "k" : bytes + "B";
    }

    /**
     * io_uring at depth 32 against the better FileChannel figure on 4 KiB random reads (FileChannel with the
     * benchmark thread count, or with 32 blocking threads = depth 32). The O_DIRECT line carries no label.
     */
    String headline(boolean direct) {
        Optional<Row> uring = rows.stream().filter(r -> r.engine().equals("uring") && r.op().equals("read")
                && r.size() == 4096 && r.direct() == direct && r.qd() == 32).findFirst();
        Optional<Row> fc = rows.stream().filter(r -> r.engine().equals("FileChannel") && r.op().equals("read")
                && r.size() == 4096 && r.direct() == direct).max(Comparator.comparingDouble(Row::opsPerSec));
        String ratio = uring.isPresent() && fc.isPresent()
                ? String.format("%.2fx", uring.get().opsPerSec() / fc.get().opsPerSec()) : "n/a";
        return "uring/FileChannel 4k randread qd32" + (direct ? "" : " (page cache)") + ": " + ratio;
    }
}
