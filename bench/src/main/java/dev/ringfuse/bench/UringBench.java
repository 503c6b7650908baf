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
 * JMH and prints one table. Usage: {@code UringBench [--quick] [--verbose] [--threads N]}.
 *
 * <p>The headline configuration (4 KiB random reads, io_uring at depth 32, FileChannel with the benchmark threads
 * and with 32 threads, page cache and O_DIRECT) is measured in several alternating rounds ({@code --rounds}, 2 in
 * quick mode, 3 otherwise); the table shows the median and range over rounds, and each ratio is the median of the
 * per-round ratios, so load drifting on a shared machine affects all engines alike.
 *
 * <p>{@code --quick} measures only the headline plus, in the page cache, virtual threads at depth 32 and
 * RandomAccessFile, with shorter iterations: 14 JMH forks, about a minute on an idle 2-core machine.
 * The last two lines compare io_uring at depth 32 with the better of the two FileChannel thread counts: first in
 * the page cache (labelled), then with O_DIRECT, printed last as {@code uring/FileChannel 4k randread qd32: <x>x}
 * — with O_DIRECT the queue depth reaches the device, in the page cache every read completes at submission.
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
        String[] sizes = quick ? new String[]{"4096"} : new String[]{"512", "4096", "16384", "65536"};
        String[] qds = quick ? new String[]{"32"} : new String[]{"1", "32", "256"};
        String[] directs = {"false", "true"};
        String[] ops = quick ? new String[]{"read"} : new String[]{"read", "write"};

        // The headline trio, alternated over rounds so that load drifting on a shared machine hits all engines.
        for (round = 0; round < rounds; round++) {
            measure("uring", UringIo.class, threads, b -> b.param("size", "4096").param("qd", "32")
                    .param("direct", directs).param("op", "read"));
            measure("FileChannel", FileChannelIo.class, threads, b -> b.param("size", "4096")
                    .param("direct", directs).param("op", "read"));
            measure("FileChannel", FileChannelIo.class, 32, b -> b.param("size", "4096")
                    .param("direct", directs).param("op", "read"));
        }
        round = -1;
        if (!quick) {
            measure("uring", UringIo.class, threads, b -> b.param("size", sizes).param("qd", qds)
                    .param("direct", directs).param("op", ops));
            measure("FileChannel", FileChannelIo.class, threads, b -> b.param("size", sizes)
                    .param("direct", directs).param("op", ops));
        }
        String[] vtDirects = quick ? new String[]{"false"} : directs;
        measure("FileChannel+vthreads", VirtualThreadFileChannelIo.class, threads, b -> b.param("size", sizes)
                .param("qd", qds).param("direct", vtDirects).param("op", ops));
        measure("RandomAccessFile", RandomAccessFileIo.class, threads, b -> b.param("size", sizes).param("op", ops));

        ResultTable table = new ResultTable(rows, threads);
        System.out.println();
        System.out.printf("io_uring vs JDK file I/O, random offsets in a %d MiB file, %d benchmark threads, %s, "
                        + "%d headline rounds, load average %s, %.0f s%n", DataFile.SIZE >> 20, threads,
                quick ? "quick" : "full", rounds, loadAverage(), (System.nanoTime() - t0) / 1e9);
        table.print(System.out);
        System.out.println(table.headline(false));
        System.out.println(table.headline(true));
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
