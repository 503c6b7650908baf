package dev.ringfuse.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(60)
class RingWraparoundTest {

    @Test
    void tinyRingSurvivesThousandsOfWraps() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).build())) {
            assertEquals(4, ring.sqEntries());
            long next = 0;
            for (int cycle = 0; cycle < 5000; cycle++) {
                int batch = 1 + cycle % 4;                 // 1..4: heads and tails wrap at every phase
                long first = next;
                for (int i = 0; i < batch; i++) ring.nextSqe().prepNop().userData(next++);
                List<Completion> got = Rings.await(ring, batch);
                assertEquals(batch, got.size());
                for (int i = 0; i < batch; i++) {
                    assertEquals(first + i, got.get(i).userData(), "cycle " + cycle);
                    assertEquals(0, got.get(i).res());
                }
            }
            assertEquals(0, ring.cqReady());
        }
    }

    @Test
    void nextSqeSubmitsByItselfWhenTheSqIsFull() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).cqEntries(64).build())) {
            for (int i = 0; i < 20; i++) ring.nextSqe().prepNop().userData(i);   // 5 fills of a 4-entry SQ
            List<Completion> got = Rings.await(ring, 20);
            for (int i = 0; i < 20; i++) assertEquals(i, got.get(i).userData());
        }
    }

    @Test
    void partialReapsKeepOrderAcrossWraps() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).cqEntries(8).build())) {
            long expected = 0, next = 0;
            for (int cycle = 0; cycle < 3000; cycle++) {
                while (ring.sqSpace() > 0 && next - expected < 8) ring.nextSqe().prepNop().userData(next++);
                ring.submitAndWait(1);
                long[] seen = {expected};
                int n = ring.reap((ud, res, fl) -> assertEquals(seen[0]++, ud), 1 + cycle % 3);
                expected += n;
            }
            expected += Rings.await(ring, (int) (next - expected)).size();
            assertEquals(next, expected);
        }
    }
}
