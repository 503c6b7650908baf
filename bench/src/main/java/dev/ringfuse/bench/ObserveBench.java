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
 * What observability adds to each request when nobody is looking, in nanoseconds: the statistics (two
 * nanoTime calls and the counters, always on), the JFR check of a disabled event, the trace logger's level
 * check. Compare with the server CPU per request from bench/observe.sh (microseconds).
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
    long latency = 12_345;

    /** What the session adds per request: stamp, counters and histogram, the JFR and trace checks. */
    @Benchmark
    public void perRequest(Blackhole bh) {
        long start = System.nanoTime();
        if (TYPE.isEnabled()) bh.consume(new DisabledEvent());
        stats.answered(2, System.nanoTime() - start + latency, 0, 80, 4112);
        if (TRACE.isLoggable(System.Logger.Level.DEBUG)) bh.consume(start);
    }

    @Benchmark
    public void statisticsOnly() {
        stats.answered(2, latency, 0, 80, 4112);
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
