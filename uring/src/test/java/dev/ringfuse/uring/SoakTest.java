package dev.ringfuse.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ten million NOPs through a ring (and many ring lifecycles) must not grow native memory. */
@Timeout(300)
class SoakTest {
    static final long MIB = 1 << 20;

    static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
        throw new IllegalStateException("no VmRSS");
    }

    static long runNops(IoUring ring, long total, int batch) throws UringException {
        long[] done = {0};
        CompletionHandler h = (ud, res, fl) -> {
            if (res != 0) throw new AssertionError("NOP failed: " + res);
            done[0]++;
        };
        long submitted = 0;
        while (submitted < total) {
            int n = (int) Math.min(batch, total - submitted);
            for (int i = 0; i < n; i++) ring.nextSqe().prepNop().userData(submitted + i);
            submitted += n;
            ring.submitAndWait(n);
            ring.reap(h);
        }
        while (done[0] < total) {
            ring.submitAndWait(1);
            ring.reap(h);
        }
        return done[0];
    }

    @Test
    void tenMillionNopsKeepRssFlat() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(256).cqEntries(512).singleIssuer().build())) {
            runNops(ring, 1_000_000, 256);                 // warm-up: JIT, arenas, page faults
            System.gc();
            long before = rssBytes();
            long t0 = System.nanoTime();
            assertEquals(10_000_000, runNops(ring, 10_000_000, 256));
            long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
            System.gc();
            long after = rssBytes();
            System.out.printf("soak: 10M NOPs in %ds, RSS %d MiB -> %d MiB%n", seconds, before / MIB, after / MIB);
            assertTrue(after - before < 16 * MIB, "RSS grew by " + (after - before) / MIB + " MiB");
        }
    }

    @Test
    void thousandsOfRingLifecyclesFreeTheirMemory() throws Exception {
        for (int i = 0; i < 200; i++) cycle();              // warm-up
        long before = rssBytes();
        for (int i = 0; i < 3000; i++) cycle();
        long after = rssBytes();
        System.out.printf("lifecycles: RSS %d MiB -> %d MiB%n", before / MIB, after / MIB);
        assertTrue(after - before < 16 * MIB, "RSS grew by " + (after - before) / MIB + " MiB");
        // every ring fd was closed: the process fd count is back to normal
        long fds;
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        assertTrue(fds < 200, "leaked fds: " + fds);
    }

    @Test
    void millionLoopRoundTripsKeepNativeMemoryFlat() throws Exception {
        try (UringLoop loop = UringLoop.start(256)) {
            // warm-up to a steady state: JIT, and a heap that has grown to its working size (a heap that shrinks
            // after System.gc() keeps its pages resident for a while, so RSS minus committed heap is no measure)
            loopNops(loop, 1_000_000);
            System.gc();
            long before = rssBytes();
            loopNops(loop, 1_000_000);
            System.gc();
            long after = rssBytes();
            System.out.printf("loop: 1M round trips, RSS %d MiB -> %d MiB%n", before / MIB, after / MIB);
            assertTrue(after - before < 32 * MIB, "native memory grew by " + (after - before) / MIB + " MiB");
        }
    }

    /** NOPs through the event loop, 512 futures in flight at a time. */
    private static void loopNops(UringLoop loop, int total) {
        java.util.concurrent.CompletableFuture<?>[] window = new java.util.concurrent.CompletableFuture<?>[512];
        for (int done = 0; done < total; done += window.length) {
            for (int i = 0; i < window.length; i++) window[i] = loop.nop();
            java.util.concurrent.CompletableFuture.allOf(window).join();
        }
    }

    private static void cycle() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(64).sqe128().build());
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            RegisteredBuffers b = ring.registerBuffers(arena.allocate(4096, 4096));
            ring.nextSqe().prepNop().userData(1);
            assertEquals(1, Rings.await(ring, 1).size());
            b.close();
        }
    }
}
