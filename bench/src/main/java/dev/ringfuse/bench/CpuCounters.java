package dev.ringfuse.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.lang.management.ManagementFactory;

/**
 * The CPU the whole benchmark process spent per operation, as JMH secondary results ({@code cpuNs}, {@code ops}).
 * On a shared machine ops/s say how much CPU the scheduler gave an engine (32 blocking threads get more than 2);
 * CPU per operation says what an operation costs, and that figure holds under load.
 *
 * <p>Process CPU (CLOCK_PROCESS_CPUTIME_ID) counts every thread of the process, including the io-wq workers the
 * kernel starts for punted io_uring requests (they are threads of the submitting process), which a per-thread
 * clock would miss. Each benchmark thread records the process's CPU over its iteration and keeps
 * {@code 1/threads} of it, so the sum over threads is the process's CPU once. Interrupt and softirq time of the
 * disk's completions is charged to whatever thread ran when they arrived: on O_DIRECT the figure is approximate.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class CpuCounters {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** This thread's share of the process CPU over the iteration, in nanoseconds. */
    public long cpuNs;
    /** Operations this thread completed over the same span (warm-up and warm-down spins included, like the CPU). */
    public long ops;
    private long start;
    private int threads;

    @Setup(Level.Iteration)
    public void begin(BenchmarkParams params) {
        threads = params.getThreads();
        ops = 0;
        cpuNs = 0;
        start = OS.getProcessCpuTime();
    }

    @TearDown(Level.Iteration)
    public void end() {
        cpuNs = (OS.getProcessCpuTime() - start) / threads;
    }
}
