package dev.ringfuse.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The polling policy's rules, on a simulated clock. */
class AdaptiveSpinTest {
    private static final long US = 1_000;

    /** What a serving thread does, before a request arrives, with the budget the policy gives it then. */
    private interface Poll {
        void with(AdaptiveSpin s, long budget);
    }

    /**
     * {@code windows} windows of requests arriving {@code gap} apart, each served in {@code serve}, each after
     * {@code poll}; returns the clock at the last one.
     */
    private static long requests(AdaptiveSpin s, long now, int windows, long gap, long serve, Poll poll) {
        for (int w = 0; w < windows; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += gap;
                poll.with(s, s.budget(now));
                s.arrived(now);
                s.served(serve);
            }
        }
        return now;
    }

    @Test
    void pollsOnlyRightAfterARequest() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        assertEquals(0, s.budget(0), "nothing arrived yet: sleep");
        s.arrived(1_000_000);
        assertEquals(50 * US, s.budget(1_000_000 + 10 * US));
        assertEquals(50 * US, s.budget(1_000_000 + 500 * US), "within 10 budgets of the last request");
        assertEquals(0, s.budget(1_000_000 + 501 * US), "requests stopped: sleep at once");
        assertEquals(0, new AdaptiveSpin(0).budget(0), "0 turns polling off");
    }

    @Test
    void pollingIsHeldToHalfTheServingTime() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        // requests served in 5 µs, each found after polling 40 µs: 8x the serving time
        long now = requests(s, 0, 6, 50 * US, 5 * US, (p, b) -> p.polled(Math.min(40 * US, b), true));
        assertTrue(s.currentBudget() <= 2 * US, "budget shrank to " + s.currentBudget());
        // then the requests come back to back: polls of 1 µs catch them, and the budget grows back
        requests(s, now, 8, 6 * US, 5 * US, (p, b) -> p.polled(US / 2, true));
        assertEquals(50 * US, s.currentBudget());
    }

    @Test
    void pollsThatCatchNothingTurnPollingDown() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = requests(s, 0, 1, 100 * US, 10 * US, (p, b) -> p.polled(b, false));
        assertEquals(0, s.currentBudget(), "a window without a catch pauses polling");
        requests(s, now, 1, 100 * US, 10 * US, (p, b) -> assertEquals(0, b, "paused for one window"));
        assertEquals(25 * US, s.currentBudget(), "then tries again with half the budget");
    }

    @Test
    void aRestStartsAfreshAtTheFullBudget() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        // polls that catch, but cost 50x the serving time: down to the minimum
        long now = requests(s, 0, 8, 100 * US, US, (p, b) -> p.polled(b, true));
        assertTrue(s.currentBudget() <= 2 * US && s.currentBudget() > 0, "turned down to " + s.currentBudget());
        now += 1_000 * US; // idle longer than 10 budgets
        s.arrived(now);
        assertEquals(50 * US, s.budget(now + US), "a new burst polls with the full budget again");
    }

    @Test
    void aRestDoesNotRestartPollingThatCaughtNothing() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = fruitlessWindows(s, 0, 3);
        long left = s.currentBudget();
        now += 1_000 * US; // a loaded machine: the application was off the CPU for a millisecond
        s.arrived(now);
        assertTrue(s.budget(now + US) < 50 * US, "no full-budget window after the rest: " + s.budget(now + US));
        assertTrue(left < 50 * US);
    }

    /** Windows of back-to-back requests, each poll running its whole budget without a catch. */
    private static long fruitlessWindows(AdaptiveSpin s, long now, int windows) {
        return requests(s, now, windows, 2 * US, US, (p, b) -> {
            if (b > 0) p.polled(b, false);
        });
    }

    @Test
    void pollingPausesWhenEvenTheSmallestBudgetDoesNotPay() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        // requests keep coming, but no poll ever catches one (2 CPUs shared with the application)
        long now = fruitlessWindows(s, 0, 7); // 50 -> 25 -> ... -> 1 µs, then a window at 1 µs still too dear
        assertEquals(0, s.currentBudget(), "paused");
        assertEquals(0, s.budget(now + US), "no poll while paused, though requests keep coming");
        // pauses double: count the windows polled in a long stretch; each costs at most one 1 µs window
        int polledWindows = 0;
        for (int w = 0; w < 200; w++) {
            if (s.budget(now + 2 * US) > 0) polledWindows++;
            now = fruitlessWindows(s, now, 1);
        }
        assertTrue(polledWindows <= 10, "tried again only " + polledWindows + " times in 200 windows");
        assertTrue(polledWindows >= 2, "but did try again: " + polledWindows);
    }

    @Test
    void aPauseEndsWithPollsThatCatch() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = fruitlessWindows(s, 0, 7);
        assertEquals(0, s.currentBudget());
        // the application now leaves the CPU free: a 0.5 µs poll catches each request
        requests(s, now, 20, 6 * US, 5 * US, (p, b) -> {
            if (b > 0) p.polled(Math.min(b, US / 2), true);
        });
        assertEquals(50 * US, s.currentBudget(), "the budget grew back once the probe window caught requests");
    }

    @Test
    void aRequestAlreadyWaitingIsNoCatch() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        // every poll finds a completion already there (QD32: 0 ns polled): no cost, but no reason to grow
        // either, and no fruitless poll that would pause polling
        long now = requests(s, 0, 3, 2 * US, US, (p, b) -> p.polled(0, true));
        assertEquals(50 * US, s.currentBudget(), "neither grown, shrunk nor paused");
        assertEquals(50 * US, s.budget(now + US));
    }

    @Test
    void aBatchCountsAsItsRequests() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        s.arrived(0);
        s.polled(50 * US, true);
        s.served(10 * US, AdaptiveSpin.WINDOW - 1);
        assertEquals(50 * US, s.currentBudget(), "a window is 32 requests, not 32 batches");
        s.served(US, 1);
        assertEquals(25 * US, s.currentBudget(), "50 µs polled for 11 µs served: halved");
    }

    @Test
    void pollsThatSaveAWakeUpMayCostThatMuch() {
        // QD1 on an idle machine: each request is caught after 3 µs of polling and served in 2 µs; a sleep and
        // wake-up instead would cost 5 µs of CPU, so polling is the cheaper way and keeps its full budget
        AdaptiveSpin s = new AdaptiveSpin(50 * US, 5 * US);
        requests(s, 0, 8, 5 * US, 2 * US, (p, b) -> p.polled(Math.min(3 * US, b), true));
        assertEquals(50 * US, s.currentBudget());
        // without the wake-up's cost counted, the same polls exceed half the serving time and are turned down
        AdaptiveSpin bare = new AdaptiveSpin(50 * US);
        requests(bare, 0, 1, 5 * US, 2 * US, (p, b) -> p.polled(3 * US, true));
        assertEquals(25 * US, bare.currentBudget());
    }

    @Test
    void aTrickleThatPollsCatchOnlyAfterLongWaitsTurnsPollingDown() {
        // a request every 30 µs, caught after 28 µs of polling: 28 µs of CPU to save a 5 µs wake-up
        AdaptiveSpin s = new AdaptiveSpin(50 * US, 5 * US);
        requests(s, 0, 8, 30 * US, 2 * US, (p, b) -> p.polled(Math.min(28 * US, b), b >= 28 * US));
        assertTrue(s.currentBudget() < 28 * US, "polls no longer reach the next request: " + s.currentBudget());
    }

    /** One counter of {@link AdaptiveSpin#counters} by name. */
    private static long counter(AdaptiveSpin s, String name) {
        return s.counters()[AdaptiveSpin.COUNTERS.indexOf(name)];
    }

    @Test
    void countersArePublishedOncePerWindow() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US, 5 * US);
        long now = 0;
        for (int i = 0; i < AdaptiveSpin.WINDOW - 1; i++) {
            now += 5 * US;
            s.polled(3 * US, true);
            s.arrived(now);
            s.served(2 * US);
        }
        assertEquals(0, counter(s, "requests"), "nothing published within a window");
        s.polled(3 * US, true);
        s.arrived(now + 5 * US);
        s.served(2 * US);
        assertEquals(AdaptiveSpin.WINDOW, counter(s, "requests"));
        assertEquals(1, counter(s, "windows"));
        assertEquals(AdaptiveSpin.WINDOW, counter(s, "polls"));
        assertEquals(AdaptiveSpin.WINDOW, counter(s, "catches"));
        assertEquals(AdaptiveSpin.WINDOW * 3 * US, counter(s, "polled_ns"));
        assertEquals(AdaptiveSpin.WINDOW * 2 * US, counter(s, "served_ns"));
        assertEquals(50 * US, counter(s, "budget_ns"));
        assertEquals(1, counter(s, "fresh_starts"), "the first request starts afresh");
        assertEquals(0, counter(s, "halvings") + counter(s, "pauses"));
    }

    @Test
    void countersShowHalvingsPausesAndSleeps() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = fruitlessWindows(s, 0, 1);
        assertEquals(1, counter(s, "pauses"), "a window without a catch pauses");
        assertEquals(1, counter(s, "halvings"), "and halves the budget");
        assertEquals(0, counter(s, "budget_ns"), "0 while paused");
        assertEquals(0, counter(s, "catches"));
        now = fruitlessWindows(s, now, 1);
        assertEquals(1, counter(s, "paused_windows"));
        assertEquals(AdaptiveSpin.WINDOW, counter(s, "paused_sleeps"), "each request of the paused window slept");
        assertEquals(25 * US, counter(s, "budget_ns"), "then tries again with half");
        s.budget(now + 1_000 * US); // a rest: sleeps at once
        s.arrived(now + 1_000 * US);
        fruitlessWindows(s, now + 1_000 * US, 1);
        assertEquals(2, counter(s, "idle_sleeps"), "before the very first request, and after the rest");
        assertEquals(1, counter(s, "fresh_starts"), "no fresh start after polls that caught nothing");
        // a cheap catching window after a halving doubles
        AdaptiveSpin d = new AdaptiveSpin(50 * US);
        now = requests(d, 0, 1, 100 * US, US, (p, b) -> p.polled(10 * US, true)); // 10 µs polled per 1 µs served
        assertEquals(1, counter(d, "halvings"));
        requests(d, now, 1, 2 * US, 5 * US, (p, b) -> p.polled(US / 2, true));
        assertEquals(1, counter(d, "doublings"));
        assertEquals(50 * US, counter(d, "budget_ns"));
    }

    @Test
    void aSubmitChargedToServingKeepsQd1PollsThatCatch() {
        // a QD1 round trip on io_uring: serving takes 2.5 µs, the submit that commits the reply 3 µs, then the
        // next request comes 4 µs later. Charged to polling, the submit made each catch cost 7 µs, above half the
        // serving time plus the 5 µs wake-up a catch saves (6.25 µs): the budget halved every window
        AdaptiveSpin asPolling = new AdaptiveSpin(50 * US, 5 * US);
        requests(asPolling, 0, 4, 10 * US, 2_500, (p, b) -> p.polled(Math.min(7 * US, b), b >= 7 * US));
        assertTrue(asPolling.currentBudget() < 50 * US, "halved: " + asPolling.currentBudget());
        // the transport now times the submit as serving (served(nanos, 0)) and polls only the wait
        AdaptiveSpin fixed = new AdaptiveSpin(50 * US, 5 * US);
        requests(fixed, 0, 20, 10 * US, 2_500, (p, b) -> {
            if (b > 0) {
                p.served(3 * US, 0);
                p.polled(Math.min(4 * US, b), b >= 4 * US);
            }
        });
        assertEquals(50 * US, fixed.currentBudget());
        assertEquals(0, counter(fixed, "halvings") + counter(fixed, "pauses"));
        assertEquals(20 * AdaptiveSpin.WINDOW, counter(fixed, "requests"), "a submit is no request");
        // every request's serving plus its submit, but the first's: nothing arrived before it, no poll, no submit
        assertEquals(20 * AdaptiveSpin.WINDOW * 5_500 - 3 * US, counter(fixed, "served_ns"));
    }

    @Test
    void pollsEndedByCompletionsThatAreNoRequestsDoNotHoldPollingUp() {
        // QD32 x 2 on 2 CPUs: polls never bring a request, but some end early with a wake-up or re-registration
        // completion. Counted as catches, they kept polling on; reported as polls without a catch, they pause it
        AdaptiveSpin s = new AdaptiveSpin(50 * US, 5 * US);
        int[] k = {0};
        requests(s, 0, 1, 2 * US, US, (p, b) -> {
            if (b > 0) p.polled(k[0]++ % 4 == 0 ? US : b, false);
        });
        assertEquals(1, counter(s, "pauses"));
        assertEquals(0, s.currentBudget());
    }

    @Test
    void describeListsEachThreadAndTheSum() {
        AdaptiveSpin a = new AdaptiveSpin(50 * US), b = new AdaptiveSpin(50 * US);
        requests(a, 0, 1, 10 * US, US, (p, x) -> p.polled(US, true));
        requests(b, 0, 2, 10 * US, US, (p, x) -> p.polled(US, true));
        StringBuilder out = new StringBuilder();
        AdaptiveSpin.describe(out, java.util.List.of("q0", "q1"), java.util.List.of(a, b));
        String[] lines = out.toString().split("\n");
        assertEquals(3, lines.length, out.toString());
        assertTrue(lines[0].startsWith("spin.q0 polls 32 catches 32 "), lines[0]);
        assertTrue(lines[1].startsWith("spin.q1 polls 64 catches 64 "), lines[1]);
        assertTrue(lines[2].startsWith("spin polls 96 catches 96 "), lines[2]);
        assertFalse(lines[2].contains("budget_ns"), "a sum of budgets means nothing");
        assertTrue(lines[0].endsWith(" budget_ns " + a.currentBudget()), lines[0]);
    }

    /**
     * QD1 on 2 CPUs as the counters suggest it may go: the stream alternates between two queues a window at a
     * time; after each of its requests, the queue the stream just left polls 4 µs in vain, while the one it
     * moved to catches its requests after 2 µs. Returns the two policies.
     */
    private static AdaptiveSpin[] movingStream(boolean shared, int windows) {
        AdaptiveSpin a = new AdaptiveSpin(50 * US, 5 * US), b = new AdaptiveSpin(50 * US, 5 * US);
        if (shared) {
            java.util.List<AdaptiveSpin> all = java.util.List.of(a, b);
            a.shareWith(all);
            b.shareWith(all);
        }
        long now = 0;
        for (int w = 0; w < windows; w++) {
            // b catches a window of requests; a, having served a request just before, polls once in vain
            now = requests(b, now, 1, 5 * US, 2 * US, (p, x) -> {
                if (x > 0) p.polled(Math.min(2 * US, x), x >= 2 * US);
            });
            now = requests(a, now, 1, 5 * US, 2 * US, (p, x) -> {
                if (x > 0) p.polled(Math.min(4 * US, x), false);
            });
        }
        return new AdaptiveSpin[] {a, b};
    }

    @Test
    void withTheMountScopeAQueueThatMissesKeepsPollingWhileAnotherCatches() {
        AdaptiveSpin[] alone = movingStream(false, 10);
        assertTrue(counter(alone[0], "pauses") > 0, "alone, the queue that misses pauses");
        AdaptiveSpin[] shared = movingStream(true, 10);
        assertEquals(0, counter(shared[0], "pauses"), "shared: the mount's polls catch, so it keeps polling");
        assertEquals(50 * US, shared[0].currentBudget());
        assertEquals(50 * US, shared[1].currentBudget());
    }

    @Test
    void withTheMountScopeBusyQueuesStillPause() {
        // QD32 x 2 on 2 CPUs: no queue's poll catches anything; sharing the evidence changes nothing
        AdaptiveSpin a = new AdaptiveSpin(50 * US, 5 * US), b = new AdaptiveSpin(50 * US, 5 * US);
        java.util.List<AdaptiveSpin> all = java.util.List.of(a, b);
        a.shareWith(all);
        b.shareWith(all);
        long now = 0;
        for (int w = 0; w < 3; w++) {
            now = fruitlessWindows(a, now, 1);
            now = fruitlessWindows(b, now, 1);
        }
        assertTrue(counter(a, "pauses") >= 1 && counter(b, "pauses") >= 1, "both paused");
        int polled = 0;
        for (int w = 0; w < 100; w++) {
            if (a.budget(now + US) > 0) polled++;
            now = fruitlessWindows(a, now, 1);
            now = fruitlessWindows(b, now, 1);
        }
        assertTrue(polled <= 10, "a polled in " + polled + " of 100 windows");
    }

    @Test
    void withTheMountScopeAPauseEndsWhenAnotherQueueCatches() {
        AdaptiveSpin a = new AdaptiveSpin(50 * US, 5 * US), b = new AdaptiveSpin(50 * US, 5 * US);
        java.util.List<AdaptiveSpin> all = java.util.List.of(a, b);
        a.shareWith(all);
        b.shareWith(all);
        long now = fruitlessWindows(a, 0, 4);
        now = fruitlessWindows(b, now, 4);
        assertEquals(0, a.currentBudget(), "paused");
        // b's polls catch cheaply now; a's next (paused) window ends its pause
        now = requests(b, now, 1, 5 * US, 2 * US, (p, x) -> p.polled(2 * US, true));
        now = requests(a, now, 1, 5 * US, 2 * US, (p, x) -> assertEquals(0, x, "still paused in this window"));
        assertTrue(a.currentBudget() > 0, "polls again: " + a.currentBudget());
    }
}
