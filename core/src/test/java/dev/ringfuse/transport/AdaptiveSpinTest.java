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
        assertEquals(25 * US, s.currentBudget());
    }

    @Test
    void aRestStartsAfreshAtTheFullBudget() {
        AdaptiveSpin s = new AdaptiveSpin(50 * US);
        long now = 0;
        for (int w = 0; w < 8; w++) {
            for (int i = 0; i < AdaptiveSpin.WINDOW; i++) {
                now += 100 * US;
                s.polled(s.budget(now), false);
                s.arrived(now);
                s.served(US); // polling 50 µs per 1 µs served: far above the share, down to the minimum
            }
        }
        assertTrue(s.currentBudget() <= 2 * US, "turned down to " + s.currentBudget());
        now += 1_000 * US; // idle longer than 10 budgets
        s.arrived(now);
        assertEquals(50 * US, s.budget(now + US), "a new burst polls with the full budget again");
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
