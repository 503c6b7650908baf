package dev.ringfuse.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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
 *   <li>a poll that caught nothing counts fully against the share, and a window whose polls caught nothing
 *       at all pauses polling: for one window, then two, four, up to {@link #MAX_PAUSE}, each pause followed
 *       by one window that tries again with half the budget. So does a window that costs more than the
 *       share even at the smallest budget. A busy machine whose serving threads share their CPUs with the
 *       application (2 CPUs, fio QD32 x 2 jobs) is the case this is for: the requests a queue thread waits
 *       for come from the tasks its polling keeps off the CPU, so its polls catch nothing, and polling held
 *       only to the share still added a fifth to the server's CPU per request (docs/bench/transports.md,
 *       "What polling cost at QD32");</li>
 *   <li>a poll that found a request already waiting (0 ns polled) is no evidence either way: it is neither
 *       a poll nor a catch;</li>
 *   <li>the first request after a rest starts again from {@code max}, unless the last polls caught nothing.</li>
 * </ul>
 *
 * <p>What a caller reports decides everything, so: a poll is only the waiting (a transport that submits its
 * replies before polling charges that submit to serving, with {@code served(nanos, 0)}), and a catch is a poll
 * that ended with a <em>request</em> (not a wake-up or a re-registration). Its decisions are counted
 * ({@link #counters}: polls, catches, halvings, pauses ...) and published once per window (and when a rest
 * cuts a window short), so a mount's statistics show what the policy does without a cost per request.
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
    /**
     * {@code -Dringfuse.spin.scope=mount}: each thread decides on the polls of all the mount's serving threads
     * ({@link #shareWith}), not on its own alone. A candidate, off by default until measured idle: at QD1 on
     * 2 CPUs the application's thread moves between the CPUs, its requests to the other CPU's queue, so one
     * queue's polls miss while the other's catch, and each queue alone pauses (docs/bench/transports.md,
     * "The polling counters").
     */
    public static final boolean MOUNT_SCOPE = "mount".equals(System.getProperty("ringfuse.spin.scope", "queue"));
    /** The longest pause of polling, in windows. */
    static final int MAX_PAUSE = 64;
    /** A rest this long ends what fruitless polls taught: what comes next is another workload. */
    static final long NEW_WORKLOAD = 1_000_000_000L;

    private final long max;
    private final long wakeCost;
    private final long idleAfter;
    private long budget;
    private long lastArrival = Long.MIN_VALUE / 2;
    private long polled, served, caught, polls;
    private int requests;
    /** Names of {@link #counters}, in order; {@code budget_ns} is the current budget (0 while paused). */
    public static final java.util.List<String> COUNTERS = java.util.List.of("polls", "catches", "polled_ns", "served_ns", "requests", "windows",
        "halvings", "doublings", "pauses", "paused_windows", "fresh_starts", "idle_sleeps", "paused_sleeps", "budget_ns");
    private static final int POLLS = 0, CATCHES = 1, POLLED = 2, SERVED = 3, REQUESTS = 4, WINDOWS = 5, HALVINGS = 6,
            DOUBLINGS = 7, PAUSES = 8, PAUSED_WINDOWS = 9, FRESH = 10, IDLE_SLEEPS = 11, PAUSED_SLEEPS = 12, BUDGET = 13;
    private static final VarHandle PUBLISHED = MethodHandles.arrayElementVarHandle(long[].class);
    /** Totals kept by the serving thread (plain), and the copy it publishes once per window (read by any thread). */
    private final long[] totals = new long[COUNTERS.size()], published = new long[COUNTERS.size()];
    /** With the mount scope: every serving thread's policy, and the sums of the others' totals last seen. */
    private java.util.List<AdaptiveSpin> group;
    private long[] peerSeen, peerNow;
    /** Windows left in the current pause (no polling), and how long the next pause lasts. */
    private int paused, nextPause = 1;
    /** The last adjustment was a pause for polls that caught nothing. */
    private boolean fruitless;

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
        if (max == 0) return 0;
        if (paused > 0) {
            totals[PAUSED_SLEEPS]++; // the thread is about to sleep: a plain increment costs nothing there
            return 0;
        }
        if (now - lastArrival > idleAfter) {
            totals[IDLE_SLEEPS]++;
            return 0;
        }
        return budget;
    }

    /** A poll of {@code nanos} ended, with a request ({@code hit}) or without. */
    public void polled(long nanos, boolean hit) {
        if (nanos <= 0) return; // found a request already there: no poll
        polled += nanos;
        polls++;
        if (hit) caught++;
    }

    /** A request arrived at {@code now} (whether polled for or slept for). */
    public void arrived(long now) {
        if (now - lastArrival > idleAfter && (!fruitless || now - lastArrival > NEW_WORKLOAD)) {
            // the first request after a rest starts afresh: a budget halved down to its minimum in an earlier
            // phase could never grow back (a 1 µs poll catches no request that comes one at a time). Not after
            // polls that caught nothing (unless the rest was a long one): on a loaded machine
            // rests come every few ms, and a full-budget window after each cost several times the serving CPU
            budget = max;
            totals[FRESH]++;
            total();
            // published too: a window cut short here would otherwise stay unpublished until 32 more requests,
            // and a jittery stream with many rests would hold back far more than one window's worth
            publish();
            paused = 0;
            nextPause = 1;
            fruitless = false;
        }
        lastArrival = now;
    }

    /** A request took {@code nanos} to serve; adjusts the budget once per window. */
    public void served(long nanos) {
        served(nanos, 1);
    }

    /**
     * {@code count} requests took {@code nanos} to serve together (a batch of completions, timed as a whole
     * so that serving costs no clock read per request); adjusts the budget once per window.
     */
    public void served(long nanos, int count) {
        served += nanos;
        requests += count;
        if (requests < WINDOW) return;
        totals[WINDOWS]++;
        // the evidence: this thread's window, plus with the mount scope what the other threads published since
        long pl = polls, cau = caught;
        double pol = polled, srv = served;
        if (group != null) {
            long[] now = peerTotals(peerNow);
            pl += now[POLLS] - peerSeen[POLLS];
            cau += now[CATCHES] - peerSeen[CATCHES];
            pol += now[POLLED] - peerSeen[POLLED];
            srv += now[SERVED] - peerSeen[SERVED];
            peerNow = peerSeen; // the two arrays swap: no allocation per window
            peerSeen = now;
        }
        double allowance = CPU_SHARE * srv + (double) wakeCost * cau;
        if (paused > 0) {
            paused--; // then one window tries again
            totals[PAUSED_WINDOWS]++;
            // with the mount scope, a pause ends as soon as the others' polls catch within the allowance:
            // the request this thread slept for may be the one the other CPU's poll pushed here
            if (group != null && cau > 0 && pol <= allowance) paused = 0;
        } else if (CPU_SHARE < 0) {
            // unbounded (measurements only): the budget stays at max
        } else if (pl > 0 && cau == 0 || pol > allowance && budget == MIN_BUDGET) {
            fruitless = cau == 0;
            totals[PAUSES]++;
            if (budget > MIN_BUDGET) totals[HALVINGS]++;
            paused = nextPause;
            nextPause = Math.min(MAX_PAUSE, nextPause * 2);
            budget = Math.max(MIN_BUDGET, budget / 2);
        } else if (pol > allowance) {
            budget = Math.max(MIN_BUDGET, budget / 2);
            totals[HALVINGS]++;
        } else if (pol < allowance / 2 && cau > 0) {
            if (budget < max) totals[DOUBLINGS]++;
            budget = Math.min(max, budget * 2);
            nextPause = 1;
            fruitless = false;
        }
        total();
        publish();
    }

    /**
     * Decide on the evidence of every serving thread of {@code all} (this one among them), not of this thread
     * alone; what the others published once per window is read once per window. The transports call it
     * only with {@code -Dringfuse.spin.scope=mount} ({@link #MOUNT_SCOPE}). {@code all} may grow (readers
     * that start later) but must be safe to iterate from this thread.
     */
    public void shareWith(java.util.List<AdaptiveSpin> all) {
        group = all;
        peerSeen = peerTotals(new long[SERVED + 1]);
        peerNow = new long[SERVED + 1];
    }

    /** Fills {@code sum} with the others' published polls, catches, time polled and served (as in totals). */
    private long[] peerTotals(long[] sum) {
        java.util.Arrays.fill(sum, 0);
        for (AdaptiveSpin o : group) {
            if (o == this) continue;
            for (int i = 0; i <= SERVED; i++) sum[i] += (long) PUBLISHED.getOpaque(o.published, i);
        }
        return sum;
    }

    /** Adds the window's figures to the totals and starts a new window. */
    private void total() {
        totals[POLLS] += polls;
        totals[CATCHES] += caught;
        totals[POLLED] += polled;
        totals[SERVED] += served;
        totals[REQUESTS] += requests;
        polled = served = caught = polls = 0;
        requests = 0;
    }

    private void publish() {
        totals[BUDGET] = currentBudget();
        for (int i = 0; i < totals.length; i++) PUBLISHED.setOpaque(published, i, totals[i]);
    }

    /**
     * The counters as of the last window's end, in the order of {@link #COUNTERS} (any thread may call this;
     * the figures of one call may straddle a window).
     */
    public long[] counters() {
        long[] c = new long[published.length];
        for (int i = 0; i < c.length; i++) c[i] = (long) PUBLISHED.getOpaque(published, i);
        return c;
    }

    /**
     * Statistics lines for the policies of a transport's serving threads: {@code spin.NAME counter value ...}
     * for each, then their sum as {@code spin counter value ...} (without the budget, which does not add up).
     */
    public static void describe(StringBuilder b, java.util.List<String> names, java.util.List<AdaptiveSpin> spins) {
        long[] sum = new long[COUNTERS.size()];
        for (int q = 0; q < spins.size(); q++) {
            long[] c = spins.get(q).counters();
            b.append("spin.").append(names.get(q));
            for (int i = 0; i < c.length; i++) {
                b.append(' ').append(COUNTERS.get(i)).append(' ').append(c[i]);
                sum[i] += c[i];
            }
            b.append('\n');
        }
        if (spins.isEmpty()) return;
        b.append("spin");
        for (int i = 0; i < BUDGET; i++) b.append(' ').append(COUNTERS.get(i)).append(' ').append(sum[i]);
        b.append('\n');
    }

    /** The current budget (0 while polling pauses), for tests and statistics. */
    public long currentBudget() { return paused > 0 ? 0 : budget; }
}
