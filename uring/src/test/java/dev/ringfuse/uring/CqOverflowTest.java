package dev.ringfuse.uring;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(60)
class CqOverflowTest {

    @Test
    void overflowedCompletionsAreKeptAndDeliveredExactlyOnce() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).cqEntries(4).build())) {
            Assumptions.assumeTrue(ring.features().noDrop(), "kernel without IORING_FEAT_NODROP");
            assertEquals(4, ring.cqEntries());
            int total = 64;
            for (int i = 0; i < total; i++) {
                ring.nextSqe().prepNop().userData(i);
                if (ring.sqSpace() == 0) ring.submit();   // never reap: the CQ (4) overflows 15 times over
            }
            ring.submit();
            assertTrue(ring.cqOverflowPending(), "IORING_SQ_CQ_OVERFLOW should be raised");
            assertEquals(4, ring.cqReady());

            BitSet seen = new BitSet(total);
            int[] count = {0};
            while (count[0] < total) {
                ring.reap((ud, res, fl) -> {
                    assertFalse(seen.get((int) ud), "duplicate completion " + ud);
                    assertEquals(0, res);
                    seen.set((int) ud);
                    count[0]++;
                });
                if (count[0] < total) ring.getEvents();      // flushes the kernel's overflow list into the CQ
            }
            assertEquals(total, seen.cardinality());
            assertFalse(ring.cqOverflowPending());
        }
    }

    @Test
    void overflowWithDeferTaskrunAlsoLosesNothing() throws Exception {
        RingConfig cfg = RingConfig.builder(8).cqEntries(8).singleIssuer().deferTaskrun().build();
        try (IoUring ring = IoUring.open(cfg)) {
            int total = 1000;
            for (int i = 0; i < total; i++) ring.nextSqe().prepNop().userData(i);
            ring.submit();
            BitSet seen = new BitSet(total);
            while (seen.cardinality() < total) {
                ring.submitAndWait(1);
                ring.reap((ud, res, fl) -> {
                    assertFalse(seen.get((int) ud));
                    seen.set((int) ud);
                });
            }
            assertEquals(total, seen.cardinality());
        }
    }
}
