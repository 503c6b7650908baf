package dev.ringfuse.session;

/**
 * The requests between dispatch and reply: found by unique for INTERRUPT, counted for statistics. A request
 * joins the stripe of the thread that dispatches it (by thread id, as the statistics choose theirs) and leaves
 * that stripe whichever thread replies; a stripe is a list linked through the {@link InFlight} records, under
 * the stripe's monitor. Adding and removing allocate nothing and write only the dispatching thread's stripe:
 * the {@code ConcurrentHashMap<Long, InFlight>} this replaces boxed the unique twice per request (put,
 * remove) and allocated a map node, and the two io_uring queue threads of a 2-CPU mount, whose requests
 * have neighbouring uniques, wrote neighbouring bins of one table and one shared count. INTERRUPT, which
 * comes rarely, searches every stripe.
 */
final class InFlightTable {
    /** A power of two, 8 per CPU (a /dev/fuse mount may run 4 readers per CPU), at most 64. */
    private static final int STRIPES = Math.min(64,
            Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 8 - 1));

    /** A stripe's list and count, guarded by the stripe's monitor. */
    static class Slot {
        InFlight head;
        int size;
    }

    /**
     * A slot followed by 128 bytes nobody writes: a superclass's fields come first, so the next stripe's
     * monitor and list head are on other cache lines than this one's.
     */
    static final class Stripe extends Slot {
        @SuppressWarnings("unused")
        private long p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15;
    }

    private final Stripe[] stripes = new Stripe[STRIPES];

    InFlightTable() {
        for (int i = 0; i < STRIPES; i++) stripes[i] = new Stripe();
    }

    /** The stripe a request dispatched on this thread joins. */
    Stripe stripe() {
        return stripes[(int) Thread.currentThread().threadId() & (STRIPES - 1)];
    }

    void add(InFlight f) {
        Stripe s = f.stripe;
        synchronized (s) {
            if (f.linked) throw new IllegalStateException("unique " + f.unique + " is in flight already");
            f.linked = true;
            f.next = s.head;
            if (s.head != null) s.head.prev = f;
            s.head = f;
            s.size++;
        }
    }

    /** Takes {@code f} out; nothing if it is not in (never added, or removed already). */
    void remove(InFlight f) {
        Stripe s = f.stripe;
        synchronized (s) {
            if (!f.linked) return;
            f.linked = false;
            if (f.prev != null) f.prev.next = f.next;
            else s.head = f.next;
            if (f.next != null) f.next.prev = f.prev;
            f.prev = f.next = null;
            s.size--;
        }
    }

    /** The request in flight with {@code unique}, or null. */
    InFlight find(long unique) {
        for (Stripe s : stripes) {
            synchronized (s) {
                for (InFlight f = s.head; f != null; f = f.next) {
                    if (f.unique == unique) return f;
                }
            }
        }
        return null;
    }

    int size() {
        int n = 0;
        for (Stripe s : stripes) {
            synchronized (s) {
                n += s.size;
            }
        }
        return n;
    }
}
