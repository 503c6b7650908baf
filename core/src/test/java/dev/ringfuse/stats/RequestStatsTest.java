package dev.ringfuse.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;

/** The per-thread counters add up to what was recorded, from any number of threads. */
class RequestStatsTest {
    private static final String[] NAMES = {"LOOKUP", "GETATTR", "READ", "WRITE"};

    private static String opLine(String snapshot, String op) {
        return snapshot.lines().filter(l -> l.startsWith("op " + op + " ")).findFirst().orElse(null);
    }

    @Test
    @Timeout(60)
    void threadsRecordingAtOnceLoseNothing() throws Exception {
        RequestStats s = new RequestStats(NAMES);
        int threads = 2 * RequestStats.STRIPES + 3; // more threads than stripes: some share one
        int each = 20_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    s.answered(2, 1_000 + id, i % 10 == 0 ? 5 : 0, 80, 4112);
                }
                s.answered(3, 7_000_000 + id, 0, 4176, 24);
            }));
        }
        go.countDown();
        for (Thread t : ts) t.join();

        assertEquals((long) threads * (each + 1), s.total());
        String snap = s.snapshot("/mnt", "uring", "2 queues", 0);
        String[] read = opLine(snap, "READ").split(" ");
        assertEquals(threads * (long) each, Long.parseLong(read[2]), "count: " + snap);
        assertEquals(threads * (long) each / 10, Long.parseLong(read[3]), "errors");
        assertEquals(threads * (long) each * 80, Long.parseLong(read[4]), "bytes in");
        assertEquals(threads * (long) each * 4112, Long.parseLong(read[5]), "bytes out");
        long sum = 0;
        for (int id = 0; id < threads; id++) sum += (1_000L + id) * each;
        assertEquals(sum, Long.parseLong(read[6]), "latency sum");
        assertEquals(1_000L + threads - 1, Long.parseLong(read[9]), "max is the largest latency recorded");
        long p50 = Long.parseLong(read[7]);
        assertTrue(p50 >= 1_000 && p50 <= 1_000L + threads - 1, "p50 within the recorded range: " + p50);

        String[] write = opLine(snap, "WRITE").split(" ");
        assertEquals(threads, Long.parseLong(write[2]));
        assertEquals(7_000_000L + threads - 1, Long.parseLong(write[9]));
        assertNull(opLine(snap, "LOOKUP"), "an opcode never answered has no line");
    }

    @Test
    void quantilesComeFromTheMergedHistogram() {
        RequestStats s = new RequestStats(NAMES);
        // 99 fast requests on this thread, one slow one on another: p50 fast, p99 fast, max slow
        for (int i = 0; i < 99; i++) s.answered(1, 10_000, 0, 56, 120);
        Thread t = Thread.ofPlatform().start(() -> s.answered(1, 50_000_000, 0, 56, 120));
        assertDoesNotThrow(() -> t.join());
        String[] g = opLine(s.snapshot("/mnt", "dev", "8 threads", 1), "GETATTR").split(" ");
        assertEquals(100, Long.parseLong(g[2]));
        long p50 = Long.parseLong(g[7]), p99 = Long.parseLong(g[8]);
        assertTrue(p50 >= 10_000 && p50 < 12_000, "p50 " + p50);
        assertTrue(p99 >= 10_000 && p99 < 12_000, "p99 " + p99);
        assertEquals(50_000_000, Long.parseLong(g[9]));
        assertThrows(IndexOutOfBoundsException.class, () -> s.answered(NAMES.length, 1, 0, 0, 0));
    }
}
