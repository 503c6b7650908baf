package dev.ringfuse.session;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;

/** The in-flight table: records added on many threads are found by unique and leave from any thread, once. */
class InFlightTableTest {
    private static final int THREADS = 12, EACH = 2_000;

    private static long unique(int thread, int i) {
        return 2L * (thread * EACH + i) + 2;
    }

    /** Runs {@code body} on {@code THREADS} platform threads at once and waits for them. */
    private static void onThreads(IntConsumer body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int k = 0; k < THREADS; k++) {
            int id = k;
            ts.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    body.accept(id);
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        go.countDown();
        for (Thread t : ts) t.join();
        assertEquals(List.of(), failures);
    }

    @Test
    @Timeout(60)
    void recordsFromManyThreadsAreFoundAndLeaveFromAnyThread() throws Exception {
        InFlightTable table = new InFlightTable();
        InFlight[][] added = new InFlight[THREADS][EACH];
        // each thread dispatches its own requests (more threads than CPUs: some share a stripe)
        onThreads(k -> {
            for (int i = 0; i < EACH; i++) {
                InFlight f = new InFlight(null, table.stripe(), unique(k, i), null, null);
                table.add(f);
                added[k][i] = f;
            }
        });
        assertEquals(THREADS * EACH, table.size());
        for (int k = 0; k < THREADS; k++) {
            for (int i = 0; i < EACH; i += 97) assertSame(added[k][i], table.find(unique(k, i)));
        }
        assertNull(table.find(1), "a unique never added");

        // replies come from other threads than the ones that dispatched: half of each thread's records leave
        onThreads(k -> {
            InFlight[] theirs = added[THREADS - 1 - k];
            for (int i = 0; i < EACH; i += 2) table.remove(theirs[i]);
        });
        assertEquals(THREADS * EACH / 2, table.size());
        for (int k = 0; k < THREADS; k++) {
            assertNull(table.find(unique(k, 0)), "removed");
            assertSame(added[k][1], table.find(unique(k, 1)), "still in flight");
            assertSame(added[k][EACH - 1], table.find(unique(k, EACH - 1)));
        }

        // a second removal (a reply and the Cleaner's EIO cannot both run, but removal must not count twice)
        table.remove(added[0][0]);
        assertEquals(THREADS * EACH / 2, table.size());
        InFlight f = added[0][1];
        assertThrows(IllegalStateException.class, () -> table.add(f), "a record is in flight once");

        for (InFlight[] row : added) for (InFlight g : row) table.remove(g);
        assertEquals(0, table.size());
        assertNull(table.find(unique(3, 3)));
    }
}
