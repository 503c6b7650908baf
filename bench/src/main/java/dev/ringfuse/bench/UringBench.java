package dev.ringfuse.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Runs the file I/O benchmarks (io_uring vs FileChannel, FileChannel on virtual threads, RandomAccessFile) with
 * JMH and prints one table. Usage: {@code UringBench [--quick] [--verbose] [--threads N] [--rounds N]}.
 *
 * <p>The headline (4 KiB random reads and writes, page cache and O_DIRECT) runs io_uring with 32 requests in
 * flight in all (32/threads on each benchmark thread's ring) against FileChannel with the benchmark threads and
 * with 32 blocking threads (32 in flight), in several alternating rounds ({@code --rounds}, 2 in quick mode, 3
 * otherwise). Each round prints its four ratios (io_uring over the better FileChannel figure of that round); the
 * table shows the median and range over rounds, and the closing lines the median of the per-round ratios with the
 * rounds themselves, so load drifting on a shared machine affects all engines alike. Every row also carries the
 * process CPU per operation ({@link CpuCounters}); each round and the closing lines give the same ratios as
 * operations per CPU second, the figure that still means something when the machine is busy (the scheduler
 * gives 32 blocking threads more CPU than 2).
 *
 * <p>{@code --quick} measures only the headline (24 JMH forks with 2 × 1 s measurement), about two minutes on an
 * idle 2-core machine. The last line stays {@code uring/FileChannel 4k randread qd32: <x>x} (O_DIRECT reads).
 */
public final class UringBench {
    private final boolean quick;
    private final boolean verbose;
    private final int threads;
    private final int rounds;
    private final Path file;
    private int round;           // tag of the rows being measured; -1 = matrix, not used by the headline
    private final List<Row> rows = new ArrayList<>();

    private UringBench(boolean quick, boolean verbose, int threads, int rounds, Path file) {
        this.quick = quick;
        this.verbose = verbose;
        this.threads = threads;
        this.rounds = rounds;
        this.file = file;
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false, verbose = false;
        int threads = 2, rounds = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--verbose" -> verbose = true;
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: UringBench [--quick] [--verbose] [--threads N] [--rounds N]");
                    System.exit(2);
                }
            }
        }
        Path file = DataFile.create();
        try {
            new UringBench(quick, verbose, threads, rounds > 0 ? rounds : quick ? 2 : 3, file).run();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private void run() throws RunnerException {
        long t0 = System.nanoTime();
        String[] sizes = {"512", "4096", "16384", "65536"};
        String[] qds = {"1", "32", "256"};
        String[] directs = {"false", "true"};
        String[] ops = {"read", "write"};

        // The headline trio, alternated over rounds so that load drifting on a shared machine hits all engines.
        for (round = 0; round < rounds; round++) {
            // 32 requests in flight in all: 32/threads on each ring, like the 32 blocking FileChannel threads
            measure("uring", UringIo.class, threads, b -> b.param("size", "4096")
                    .param("qd", String.valueOf(ResultTable.HEADLINE_DEPTH / threads))
                    .param("direct", directs).param("op", ops));
            measure("FileChannel", FileChannelIo.class, threads, b -> b.param("size", "4096")
                    .param("direct", directs).param("op", ops));
            measure("FileChannel", FileChannelIo.class, ResultTable.HEADLINE_DEPTH, b -> b.param("size", "4096")
                    .param("direct", directs).param("op", ops));
            ResultTable sofar = new ResultTable(rows, threads);
            System.out.printf("round %d: uring/FileChannel 4k qd32: read page %s, read direct %s, write page %s, "
                    + "write direct %s (load average %s)%n", round + 1, last(sofar, "read", false),
                    last(sofar, "read", true), last(sofar, "write", false), last(sofar, "write", true), loadAverage());
            System.out.printf("round %d: ops per CPU second, uring/FileChannel: read page %s, read direct %s, "
                    + "write page %s, write direct %s%n", round + 1, lastCpu(sofar, "read", false),
                    lastCpu(sofar, "read", true), lastCpu(sofar, "write", false), lastCpu(sofar, "write", true));
        }
        round = -1;
        if (!quick) {
            measure("uring", UringIo.class, threads, b -> b.param("size", sizes).param("qd", qds)
                    .param("direct", directs).param("op", ops));
            measure("FileChannel", FileChannelIo.class, threads, b -> b.param("size", sizes)
                    .param("direct", directs).param("op", ops));
            measure("FileChannel+vthreads", VirtualThreadFileChannelIo.class, threads, b -> b.param("size", sizes)
                    .param("qd", qds).param("direct", directs).param("op", ops));
            measure("RandomAccessFile", RandomAccessFileIo.class, threads, b -> b.param("size", sizes)
                    .param("op", ops));
        }
        ResultTable table = new ResultTable(rows, threads);
        System.out.println();
        System.out.printf("io_uring vs JDK file I/O, random offsets in a %d MiB file, %d benchmark threads, %s, "
                        + "%d headline rounds, load average %s, %.0f s%n", DataFile.SIZE >> 20, threads,
                quick ? "quick" : "full", rounds, loadAverage(), (System.nanoTime() - t0) / 1e9);
        table.print(System.out);
        for (String op : ops) {
            for (boolean direct : new boolean[] {false, true}) System.out.println(table.cpuHeadline(op, direct));
        }
        System.out.println(table.headline("write", false));
        System.out.println(table.headline("write", true));
        System.out.println(table.headline("read", false));
        System.out.println(table.headline("read", true));
    }

    private static String last(ResultTable t, String op, boolean direct) {
        List<Double> r = t.headlineRatios(op, direct);
        return r.isEmpty() ? "n/a" : String.format("%.2fx", r.getLast());
    }

    private static String lastCpu(ResultTable t, String op, boolean direct) {
        List<Double> r = t.headlineCpuRatios(op, direct);
        return r.isEmpty() ? "n/a" : String.format("%.2fx", r.getLast());
    }

    private interface Params {
        ChainedOptionsBuilder apply(ChainedOptionsBuilder b);
    }

    private void measure(String engine, Class<?> benchmark, int threadCount, Params params) throws RunnerException {
        System.out.printf("running %s (%s, %d threads)...%n", engine, benchmark.getSimpleName(), threadCount);
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("\\b" + benchmark.getName().replace(".", "\\.") + "\\.")
                .forks(1)
                .threads(threadCount)
                .warmupIterations(2)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(quick ? 2 : 3)
                .measurementTime(TimeValue.seconds(1))
                .shouldFailOnError(false)
                .verbosity(verbose ? VerboseMode.NORMAL : VerboseMode.SILENT)
                // -Xbatch: compile in the foreground. The FFM downcall chain needs C2, and on a loaded 2-core machine
                // a background compiler starves behind the benchmark threads (io_uring warmed up over 5 s instead
                // of 2). Steady-state code is the same for every engine.
                .jvmArgsAppend("--enable-native-access=ALL-UNNAMED", "-Dbench.file=" + file, "-Xmx512m", "-Xbatch");
        Collection<RunResult> results = new Runner(params.apply(b).build()).run();
        for (RunResult r : results) rows.add(Row.of(engine, threadCount, round, r));
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
