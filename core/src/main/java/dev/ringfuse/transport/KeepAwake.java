package dev.ringfuse.transport;

import dev.ringfuse.sys.Libc;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the CPUs out of idle while a request stream is hot, so that the wake-ups a request needs (the
 * serving thread's and, after the reply, the application's) land on a running CPU instead of a halted one.
 *
 * <p>Why: on a virtual machine whose guest does not poll before halting (cpuidle-haltpoll off or absent),
 * waking a thread on an idle vCPU costs an IPI and a VM exit, ~10 µs each way. A closed-loop QD1 stream pays
 * it twice per request: memfs over io_uring served 4 KiB O_DIRECT reads at 40–50k/s idle against
 * 170–190k/s with the other vCPU kept busy (docs/bench/transports.md, "Keeping the CPUs awake"). The queue
 * threads' own polls cannot fix that: the application's wake-up is the kernel's.
 *
 * <p>Only the io_uring transport feeds it. Its queues are per CPU and a request goes to the queue of the CPU
 * its application runs on, so the two take turns on one CPU and what is left to avoid is the scheduler
 * moving the application to a halted one. /dev/fuse wakes its readers in turn, wherever they last ran, and
 * there keeping the CPUs awake measured slower (the same section).
 *
 * <p>How: one thread per CPU (up to {@link #MAX_KEEPERS}) in SCHED_IDLE, the scheduling class that runs only
 * when no other thread of its group wants the CPU and is preempted at once by them; threads of another cgroup
 * or session compete with the keeper's group by group weight, and next to busy threads of another session the
 * keepers measured up to a fifth off QD1 (docs/bench/transports.md, "Where the keepers run"). The keepers start when
 * two requests arrive less than {@link #HOT_GAP} apart (a stream whose wake-ups matter), spin while requests
 * keep arriving, and park {@link #HOT_GAP} after the last one: an idle mount costs nothing, and a sparse
 * stream (one request every few hundred µs) never starts them. If the kernel refuses SCHED_IDLE the keepers
 * never spin (a keeper at normal priority would compete with the application).
 *
 * <p>Process-wide, since it is about CPUs: every mount of the process feeds the same arrival clock. Off with
 * {@code -o spin=0} (the transports then never call it) or {@code -Dringfuse.keepAwake=0}; the system
 * property also sets the number of keepers. The keeper threads end with the process's last io_uring queue
 * (the last such mount's end); a later hot stream starts new ones.
 */
public final class KeepAwake {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    /** Arrivals closer than this start the keepers; a stream quieter than this stops them. */
    static final long HOT_GAP = Long.getLong("ringfuse.keepAwake.gapNanos", 50_000);
    /** More CPUs than this: the keepers would spin on many CPUs for one stream; set the property to go beyond. */
    static final int MAX_KEEPERS = 4;

    private static final KeepAwake INSTANCE = new KeepAwake(Integer.getInteger("ringfuse.keepAwake", defaultCount()));

    private final int count;
    /** The newest arrival (System.nanoTime), written by every serving thread. */
    private volatile long last = Long.MIN_VALUE / 2;
    /** True from the arrival that starts the keepers until the first of them sees the stream end. */
    private volatile boolean hot;
    private volatile Thread[] keepers;
    private volatile boolean refused;
    private final AtomicLong keptNanos = new AtomicLong();
    private final AtomicLong starts = new AtomicLong();
    /** Queue threads of the process that may feed the keepers; the last one to leave ends them. Guarded by this. */
    private int users;

    KeepAwake(int count) {
        this.count = Math.max(0, count);
    }

    /**
     * One keeper per CPU, at most {@link #MAX_KEEPERS}; none on one CPU (no other CPU to keep awake) and none
     * under a CPU quota: a SCHED_IDLE thread still spends the cgroup's quota, and a throttled cgroup stops
     * the server and the application with it.
     */
    static int defaultCount() {
        try {
            int cpus = Runtime.getRuntime().availableProcessors();
            if (cpus < 2) return 0;
            String quota = CpuQuota.of(java.nio.file.Path.of("/proc/self/cgroup"), java.nio.file.Path.of("/sys/fs/cgroup"));
            if (quota != null) {
                LOG.log(System.Logger.Level.DEBUG, "CPU quota " + quota + ": CPUs are not kept awake");
                return 0;
            }
            return Math.min(MAX_KEEPERS, cpus);
        } catch (Throwable t) { // never a failed class initialisation for every mount
            LOG.log(System.Logger.Level.DEBUG, "CPUs are not kept awake: " + t);
            return 0;
        }
    }

    /** The process's keepers. */
    public static KeepAwake get() {
        return INSTANCE;
    }

    /** True if keepers may spin (not off, not refused); where they may not, the transports use {@link LatencyHint}. */
    public boolean spinning() {
        return count > 0 && !refused;
    }

    /** A serving thread that feeds {@link #arrived} starts; pair with {@link #leave} when it ends. */
    public synchronized void join() {
        users++;
    }

    /** A serving thread ended: the last one ends the keeper threads (a later hot stream starts new ones). */
    public synchronized void leave() {
        if (--users > 0) return;
        Thread[] k = keepers;
        keepers = null;
        hot = false;
        if (k != null) for (Thread t : k) LockSupport.unpark(t);
    }

    /** A request (or a batch) arrived at {@code now}: starts the keepers if the stream is hot. */
    public void arrived(long now) {
        if (count == 0 || refused) return; // off: not even the shared store
        long prev = last;
        if (prev != now) last = now;
        if (!hot && now - prev < HOT_GAP) start();
    }

    private void start() {
        synchronized (this) {
            if (hot) return;
            hot = true;
            starts.incrementAndGet();
            Thread[] k = keepers;
            if (k == null) {
                try {
                    Thread[] mine = new Thread[count];
                    for (int i = 0; i < count; i++) {
                        mine[i] = Thread.ofPlatform().daemon().name("ringfuse-keepawake-" + i).unstarted(() -> keep(mine));
                    }
                    k = mine;
                    keepers = k;
                    for (Thread t : k) t.start();
                } catch (Throwable t) {
                    // no thread to be had (a pids limit, memory): the serving thread that got here must go on
                    refuse("cannot start the keeper threads (" + t + ")");
                }
                return;
            }
            for (Thread t : k) LockSupport.unpark(t);
        }
    }

    private void refuse(String why) {
        if (!refused) {
            refused = true;
            LOG.log(System.Logger.Level.DEBUG, why + ": CPUs are not kept awake");
        }
        hot = false;
    }

    /** One keeper's life: it ends when {@code mine} is no longer the process's set of keepers. */
    private void keep(Thread[] mine) {
        boolean idle;
        try {
            // a keeper inherits the CPU mask of the queue thread that started it, pinned to the CPU the hot
            // stream came from: measured, that is where a keeper pays; keepers spread over the CPUs (or one
            // per CPU) made QD1 slower whenever threads of another session wanted the CPUs (37-102k against
            // 187k without keepers, docs/bench/transports.md)
            idle = Libc.schedIdle();
        } catch (Throwable t) {
            idle = false;
        }
        if (!idle) {
            refuse("SCHED_IDLE refused");
            return;
        }
        while (keepers == mine) {
            if (hot) {
                long start = System.nanoTime(), now = start;
                while (now - last < HOT_GAP) {
                    Thread.onSpinWait();
                    now = System.nanoTime();
                }
                keptNanos.addAndGet(now - start);
                // a request arriving between the check and this store restarts them next time
                if (keepers == mine) hot = false;
            }
            LockSupport.park(this);
        }
    }

    /**
     * A statistics line {@code keepawake threads N kept_ns T starts S}: keeper threads (0 when off or refused),
     * nanoseconds they spent keeping CPUs awake, times a hot stream started them.
     */
    public void describe(StringBuilder b) {
        b.append("keepawake threads ").append(refused ? 0 : count).append(" kept_ns ").append(keptNanos.get())
                .append(" starts ").append(starts.get()).append('\n');
    }

}
