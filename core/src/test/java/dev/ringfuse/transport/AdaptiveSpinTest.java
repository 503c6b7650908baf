package dev.ringfuse.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The polling policy's rules, on a simulated clock. */
class AdaptiveSpinTest {
    private static final long US = 1_000;

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
        long now = 0;
        // requests served in 5 µs, each found after polling 40 µs: 8x the serving time
        for (int w = 0; w < 6; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 50 * US;
                s.polled(Math.min(40 * US, s.budget(now)), true);
                s.arrived(now);
                s.served(5 * US);
            }
        }
        assertTrue(s.currentBudget() <= 2 * US, "budget shrank to " + s.currentBudget());
        // then the requests come back to back: polls of 1 µs catch them, and the budget grows back
        for (int w = 0; w < 8; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 6 * US;
                s.polled(US / 2, true);
                s.arrived(now);
                s.served(5 * US);
            }
        }
        assertEquals(50 * US, s.currentBudget());
    }

    @Test
    void pollsThatCatchNothingTurnPollingDown() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = 0;
        for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
            now += 100 * US;
            s.polled(s.budget(now), false);
            s.arrived(now);
            s.served(10 * US);
        }
        assertEquals(0, s.currentBudget(), "a window without a catch pauses polling");
        for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
            now += 100 * US;
            assertEquals(0, s.budget(now), "paused for one window");
            s.arrived(now);
            s.served(10 * US);
        }
        assertEquals(25 * US, s.currentBudget(), "then tries again with half the budget");
    }

    @Test
    void aRestStartsAfreshAtTheFullBudget() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = 0;
        for (int w = 0; w < 8; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 100 * US;
                s.polled(s.budget(now), true);
                s.arrived(now);
                s.served(US); // polls that catch, but cost 50x the serving time: down to the minimum
            }
        }
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
        for (int w = 0; w < windows; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 2 * US;
                long b = s.budget(now);
                if (b > 0) s.polled(b, false);
                s.arrived(now);
                s.served(US);
            }
        }
        return now;
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
        for (int w = 0; w < 20; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 6 * US;
                long b = s.budget(now);
                if (b > 0) s.polled(Math.min(b, US / 2), true);
                s.arrived(now);
                s.served(5 * US);
            }
        }
        assertEquals(50 * US, s.currentBudget(), "the budget grew back once the probe window caught requests");
    }

    @Test
    void aRequestAlreadyWaitingIsNoCatch() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = 0;
        // every poll finds a completion already there (QD32: 0 ns polled): no cost, but no reason to grow
        // either, and no fruitless poll that would pause polling
        for (int w = 0; w < 3; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 2 * US;
                s.polled(0, true);
                s.arrived(now);
                s.served(US);
            }
        }
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
        long now = 0;
        for (int w = 0; w < 8; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 5 * US;
                s.polled(Math.min(3 * US, s.budget(now)), true);
                s.arrived(now);
                s.served(2 * US);
            }
        }
        assertEquals(50 * US, s.currentBudget());
        // without the wake-up's cost counted, the same polls exceed half the serving time and are turned down
        AdaptiveSpin bare = new AdaptiveSpin(50 * US);
        now = 0;
        for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
            now += 5 * US;
            bare.polled(3 * US, true);
            bare.arrived(now);
            bare.served(2 * US);
        }
        assertEquals(25 * US, bare.currentBudget());
    }

    @Test
    void aTrickleThatPollsCatchOnlyAfterLongWaitsTurnsPollingDown() {
        // a request every 30 µs, caught after 28 µs of polling: 28 µs of CPU to save a 5 µs wake-up
        AdaptiveSpin s = new AdaptiveSpin(50 * US, 5 * US);
        long now = 0;
        for (int w = 0; w < 8; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 30 * US;
                long b = s.budget(now);
                s.polled(Math.min(28 * US, b), b >= 28 * US);
                s.arrived(now);
                s.served(2 * US);
            }
        }
        assertTrue(s.currentBudget() < 28 * US, "polls no longer reach the next request: " + s.currentBudget());
    }
}
