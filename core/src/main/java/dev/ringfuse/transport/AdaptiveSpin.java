package dev.ringfuse.transport;

/**
 * When a transport thread that has just served a request should poll for the next one instead of sleeping,
 * and for how long. One instance per serving thread (not thread-safe).
 *
 * <p>Sleeping costs a wake-up per request, and on a virtual machine a halted vCPU takes tens of microseconds
 * to wake: that, not Java, is what a QD1 request pays on an idle machine. Polling removes it while requests
 * keep coming, and would burn a CPU when they do not. So, as NAPI busy polling and io_uring's SQPOLL idle
 * time do, the thread polls only for a bounded time and only right after a request; in addition the time
 * spent polling is held to a share of the time spent serving:
 * <ul>
 *   <li>no request within the last {@code 10 × max} (and at least 200 µs): no polling at all, so an idle
 *       mount sleeps at once and costs no CPU;</li>
 *   <li>the budget starts at {@code max}; every {@link #WINDOW} requests the time polled is compared with
 *       what polling may spend: {@link #CPU_SHARE} of the time served, plus, for every request a poll caught,
 *       the CPU a sleep and wake-up would have cost ({@code wakeCost}: the poll saved it). Above that the
 *       budget halves, well below it (and when polls catch requests) it doubles back towards {@code max}.
 *       The server's CPU per request with polling thus stays within {@code 1 + CPU_SHARE} times what it is
 *       without polling (serving plus a sleep and wake-up per request);</li>
 *   <li>a poll that caught nothing counts fully against the share, so a workload whose requests come just too
 *       slowly to be caught turns polling down within a window;</li>
 *   <li>the first request after a rest starts again from {@code max}.</li>
 * </ul>
 */
public final class AdaptiveSpin {
    /** Requests per adjustment. */
    static final int WINDOW = 32;
    /**
     * The most time spent polling, as a share of the time spent serving ({@code -Dringfuse.spin.share=}, for
     * measurements; a negative value removes the bound).
     */
    static final double CPU_SHARE = Double.parseDouble(System.getProperty("ringfuse.spin.share", "0.5"));
    private static final long MIN_BUDGET = 1_000;

    private final long max;
    private final long wakeCost;
    private final long idleAfter;
    private long budget;
    private long lastArrival = Long.MIN_VALUE / 2;
    private long polled, served, caught;
    private int requests;

    /** @param maxNanos the longest poll; 0 turns polling off */
    public AdaptiveSpin(long maxNanos) {
        this(maxNanos, 0);
    }

    /**
     * @param maxNanos the longest poll; 0 turns polling off
     * @param wakeCostNanos the server CPU one sleep and wake-up of the serving thread costs, which a poll that
     *        catches the next request saves; 0 when polling saves none (the /dev/fuse measurement in
     *        docs/bench/transports.md)
     */
    public AdaptiveSpin(long maxNanos, long wakeCostNanos) {
        this.max = maxNanos;
        this.wakeCost = wakeCostNanos;
        this.budget = maxNanos;
        this.idleAfter = Math.max(10 * maxNanos, 200_000);
    }

    /** How long to poll now, in nanoseconds; 0: sleep at once. */
    public long budget(long now) {
        if (max == 0 || now - lastArrival > idleAfter) return 0;
        return budget;
    }

    /** A poll of {@code nanos} ended, with a request ({@code hit}) or without. */
    public void polled(long nanos, boolean hit) {
        polled += nanos;
        if (hit) caught++;
    }

    /** A request arrived at {@code now} (whether polled for or slept for). */
    public void arrived(long now) {
        if (now - lastArrival > idleAfter) {
            // the first request after a rest starts afresh: a budget halved down to its minimum in an earlier
            // phase could never grow back (a 1 µs poll catches no request that comes one at a time)
            budget = max;
            polled = served = caught = 0;
            requests = 0;
        }
        lastArrival = now;
    }

    /** A request took {@code nanos} to serve; adjusts the budget once per window. */
    public void served(long nanos) {
        served += nanos;
        if (++requests < WINDOW) return;
        if (CPU_SHARE < 0) {
            // unbounded (measurements only): the budget stays at max
        } else if (polled > allowance()) {
            budget = Math.max(MIN_BUDGET, budget / 2);
        } else if (polled < allowance() / 2 && caught > 0) {
            budget = Math.min(max, budget * 2);
        }
        polled = served = caught = 0;
        requests = 0;
    }

    /** What polling may have spent in this window (see the class comment). */
    private double allowance() {
        return CPU_SHARE * served + (double) wakeCost * caught;
    }

    /** The current budget, for tests and statistics. */
    public long currentBudget() { return budget; }
}
