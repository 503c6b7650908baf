package dev.ringfuse.bench;

import dev.ringfuse.stats.RequestStats;
import java.util.concurrent.TimeUnit;
import jdk.jfr.EventType;
import jdk.jfr.Name;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * What observability adds to each request when nobody is looking, in nanoseconds: the statistics (a
 * nanoTime call and the counters, always on), the JFR check of a disabled event, the trace logger's level
 * check; and what one clock read and the counters cost with two threads recording at once. Compare with
 * the server CPU per request from bench/observe.sh (microseconds).
 * Run: java -cp bench/target/ringfuse-bench.jar dev.ringfuse.bench.ObserveBench
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class ObserveBench {
    @Name("dev.ringfuse.bench.Disabled")
    @jdk.jfr.Enabled(false)
    static final class DisabledEvent extends jdk.jfr.Event {}

    static final EventType TYPE = EventType.getEventType(DisabledEvent.class);
    static final System.Logger TRACE = System.getLogger("dev.ringfuse.request");
    final RequestStats stats = new RequestStats(new String[] {"LOOKUP", "GETATTR", "READ", "WRITE"});
    final SharedCounterStats shared = new SharedCounterStats(4);
    long latency = 12_345;

    /**
     * What the session adds per request: counters and histogram with the one clock read at the reply (the
     * start comes from the transport's stamp), the JFR and trace checks.
     */
    @Benchmark
    public void perRequest(Blackhole bh) {
        if (TYPE.isEnabled()) bh.consume(new DisabledEvent());
        long now = System.nanoTime();
        stats.answered(2, latency + (now & 0xfff), 0, 80, 4112); // a latency that varies as real ones do
        if (TRACE.isLoggable(System.Logger.Level.DEBUG)) bh.consume(now);
    }

    @Benchmark
    public void statisticsOnly() {
        stats.answered(2, latency, 0, 80, 4112);
    }

    /**
     * The statistics as a 2-CPU io_uring mount records them: two serving threads answering the same opcode at
     * once (counters every thread writes bounce their cache line between the CPUs).
     */
    @Benchmark
    @Threads(2)
    public void statisticsTwoThreads() {
        stats.answered(2, latency, 0, 80, 4112);
    }

    /** The same with the design before the per-thread stripes (one set of counters every thread writes). */
    @Benchmark
    @Threads(2)
    public void sharedCountersTwoThreads() {
        shared.answered(2, latency, 0, 80, 4112);
    }

    /** One clock read: what each per-request {@code System.nanoTime()} costs on this machine. */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public boolean jfrCheckOnly() {
        return TYPE.isEnabled();
    }

    @Benchmark
    public void baseline() {}

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder().include(ObserveBench.class.getName()).forks(1).threads(1)
                .warmupIterations(3).warmupTime(TimeValue.seconds(1))
                .measurementIterations(5).measurementTime(TimeValue.seconds(1)).build()).run();
    }
}
