package dev.ringfuse.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Asks the kernel for a CPU wake-up latency of 0 µs while a request stream is hot: a PM QoS request on
 * {@code /dev/cpu_dma_latency}, under which idle CPUs poll in the kernel's idle loop instead of halting.
 *
 * <p>Why: on a virtual machine whose guest halts at once when idle (cpuidle-haltpoll with
 * {@code guest_halt_poll_ns} = 0, as here), every wake-up on an idle vCPU is an IPI and a VM exit. /dev/fuse
 * wakes its readers wherever they last ran and the scheduler moves the application to an idle CPU whenever
 * its own is busy at the wake-up, so a closed-loop stream crosses CPUs twice per request and no server thread
 * can keep that from happening (KeepAwake's SCHED_IDLE threads made it worse there: a CPU running only
 * them counts as idle when a woken thread is placed). A CPU polling in its idle loop needs no IPI to be
 * woken: memfs QD1 4 KiB O_DIRECT reads over /dev/fuse went from 51k/s to 94–115k/s (docs/bench/transports.md,
 * "A latency request while a stream is hot"). The io_uring transport keeps using the keepers, which did better
 * there (its queues are per CPU), and uses this only where the keepers do not run (one CPU, a cgroup CPU
 * quota, SCHED_IDLE refused).
 *
 * <p>The cost is the idle CPUs' polling while the request is held: CPU time no process is charged for
 * (cpuidle state 0's time in sysfs; the benchmarks report it per operation). So the request is held only
 * while requests keep coming less than {@link #HOT_GAP} apart, and dropped {@link #HOLD} after the last one by
 * a watcher thread that sleeps while nothing is held; and it is not used on machines of more than
 * {@link #MAX_CPUS} CPUs, where one stream would keep many idle CPUs polling. The descriptor's request ends
 * with the process (a killed server leaves nothing behind), and only root may open the device: other servers
 * go without.
 *
 * <p>{@code -Dringfuse.latencyHint=off} turns it off, {@code =on} uses it on any number of CPUs;
 * {@code -o spin=0} turns it off with the polls.
 */
public final class LatencyHint {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    static final long HOT_GAP = KeepAwake.HOT_GAP;
    /**
     * Quiet for this long: the request is dropped (the watcher looks this often while it is held). Not 1 ms: a
     * watcher waking 1,000 times a second cost QD32 x 2 on /dev/fuse 0.84x (memfs, 2 vCPUs), even with the
     * request's writes left out; at 10 ms, 0.94x within the run's spread (docs/bench/transports.md).
     */
    static final long HOLD = Long.getLong("ringfuse.latencyHint.holdNanos", 10_000_000);
    static final int MAX_CPUS = 4;
    /** Without a hot stream for this long, the watcher closes the descriptor and ends. */
    static final long IDLE_END = 10_000_000_000L;
    /** The arrival clock's resolution: far below {@link #HOT_GAP} and {@link #HOLD}. */
    static final long STAMP = 10_000;
    /** PM_QOS_CPU_LATENCY_DEFAULT_VALUE: no constraint. */
    private static final int NO_CONSTRAINT = 2_000_000_000;
    static final Path DEVICE = Path.of("/dev/cpu_dma_latency");

    private static final LatencyHint INSTANCE = new LatencyHint(enabledByDefault(System.getProperty("ringfuse.latencyHint", "auto"),
            Runtime.getRuntime().availableProcessors()));

    private final boolean enabled;
    private volatile long last = Long.MIN_VALUE / 2;
    private volatile boolean held;
    private volatile boolean refused;
    private final AtomicLong holds = new AtomicLong();
    /** Guarded by this: open while a watcher lives. */
    private FileChannel channel;
    /** Guarded by this: the thread that drops the request, null when none runs. */
    private Thread watcher;
    private final ByteBuffer value = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder());

    LatencyHint(boolean enabled) {
        this.enabled = enabled;
    }

    static boolean enabledByDefault(String setting, int cpus) {
        return switch (setting) {
            case "on", "true" -> cpus > 1;
            case "off", "false" -> false;
            default -> cpus > 1 && cpus <= MAX_CPUS;
        };
    }

    /** The process's request. */
    public static LatencyHint get() {
        return INSTANCE;
    }

    /** A request (or a batch) arrived at {@code now} (System.nanoTime): holds the request if the stream is hot. */
    public void arrived(long now) {
        if (!enabled || refused) return;
        long prev = last;
        // a store every STAMP at most: every serving thread writes here, and at QD32 one cache line written by
        // all of them on every request costs more than the request's own bookkeeping
        if (now - prev >= STAMP) last = now;
        if (!held && now - prev < HOT_GAP) hold();
    }

    private synchronized void hold() {
        if (held || refused) return;
        try {
            if (channel == null) channel = FileChannel.open(DEVICE, StandardOpenOption.WRITE);
            boolean start = watcher == null;
            // made before the request: a request without a watcher to drop it would stay until the process ends
            if (start) watcher = Thread.ofPlatform().daemon().name("ringfuse-latency-hint").unstarted(this::watch);
            set(0);
            held = true;
            if (start) watcher.start();
            else LockSupport.unpark(watcher);
            holds.incrementAndGet();
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            // not root, no such device (a container), no thread to be had: the stream goes on without, and
            // a request already made ends with the descriptor
            refused = true;
            held = false;
            watcher = null;
            closeChannel();
            LOG.log(System.Logger.Level.DEBUG, "no CPU latency request: " + e);
        }
    }

    private void set(int v) throws IOException {
        value.clear();
        value.putInt(0, v);
        channel.write(value);
    }

    /**
     * The watcher: drops the request once the stream has been quiet for {@link #HOLD}; after {@link #IDLE_END}
     * without a hot stream it closes the descriptor and ends (the next hot stream opens and starts them again),
     * so a process that mounted once keeps neither a thread nor a descriptor for it.
     */
    private void watch() {
        while (true) {
            if (held) {
                LockSupport.parkNanos(this, HOLD);
                if (System.nanoTime() - last > HOLD) release();
                continue;
            }
            LockSupport.parkNanos(this, IDLE_END);
            synchronized (this) {
                if (!held && System.nanoTime() - last >= IDLE_END) {
                    watcher = null;
                    closeChannel();
                    return;
                }
            }
        }
    }

    private synchronized void release() {
        if (!held) return;
        try {
            set(NO_CONSTRAINT);
        } catch (IOException e) {
            // the request cannot be changed: close the descriptor, which ends it, and use it no more
            refused = true;
            closeChannel();
            LOG.log(System.Logger.Level.DEBUG, "CPU latency request dropped: " + e);
        }
        held = false;
    }

    /** Closes the descriptor, which ends whatever request it made. Called holding this. */
    private void closeChannel() {
        try {
            if (channel != null) channel.close();
        } catch (IOException ignored) {
            // closing ends the request either way
        }
        channel = null;
    }

    /** A statistics line {@code latencyhint held H holds N} (held 0 or 1; times a hot stream took it). */
    public void describe(StringBuilder b) {
        if (!enabled) return;
        b.append("latencyhint held ").append(held ? 1 : 0).append(" holds ").append(holds.get())
                .append(refused ? " refused" : "").append('\n');
    }
}
