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
 * <p>{@code --quick} measures only 4 KiB random reads, page cache and O_DIRECT (io_uring at depth 32, FileChannel
 * with the benchmark threads and with 32 threads, virtual threads at depth 32, RandomAccessFile) in about a minute.
 * The last two lines compare io_uring at depth 32 with the better of the two FileChannel thread counts: first in
 * the page cache (labelled), then with O_DIRECT, printed last as {@code uring/FileChannel 4k randread qd32: <x>x}
 * — with O_DIRECT the queue depth reaches the device, in the page cache every read completes at submission.
 */
public final class UringBench {
    private final boolean quick;
    private final boolean verbose;
    private final int threads;
    private final Path file;
    private final List<Row> rows = new ArrayList<>();

    private UringBench(boolean quick, boolean verbose, int threads, Path file) {
        this.quick = quick;
        this.verbose = verbose;
        this.threads = threads;
        this.file = file;
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false, verbose = false;
        int threads = 2;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--verbose" -> verbose = true;
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: UringBench [--quick] [--verbose] [--threads N]");
                    System.exit(2);
                }
            }
        }
        Path file = DataFile.create();
        try {
            new UringBench(quick, verbose, threads, file).run();
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

        measure("uring", UringIo.class, threads, b -> b.param("size", sizes).param("qd", qds)
                .param("direct", directs).param("op", ops));
        measure("FileChannel", FileChannelIo.class, threads, b -> b.param("size", sizes)
                .param("direct", directs).param("op", ops));
        measure("FileChannel", FileChannelIo.class, 32, b -> b.param("size", "4096")
                .param("direct", directs).param("op", "read"));
        measure("FileChannel+vthreads", VirtualThreadFileChannelIo.class, threads, b -> b.param("size", sizes)
                .param("qd", qds).param("direct", directs).param("op", ops));
        measure("RandomAccessFile", RandomAccessFileIo.class, threads, b -> b.param("size", sizes).param("op", ops));

        ResultTable table = new ResultTable(rows, threads);
        System.out.println();
        System.out.printf("io_uring vs JDK file I/O, random offsets in a %d MiB file, %d benchmark threads, %s, %.0f s%n",
                DataFile.SIZE >> 20, threads, quick ? "quick" : "full", (System.nanoTime() - t0) / 1e9);
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
                .measurementIterations(3)
                .measurementTime(TimeValue.seconds(1))
                .shouldFailOnError(false)
                .verbosity(verbose ? VerboseMode.NORMAL : VerboseMode.SILENT)
                .jvmArgsAppend("--enable-native-access=ALL-UNNAMED", "-Dbench.file=" + file, "-Xmx512m");
        Collection<RunResult> results = new Runner(params.apply(b).build()).run();
        for (RunResult r : results) rows.add(Row.of(engine, threadCount, r));
    }
}
