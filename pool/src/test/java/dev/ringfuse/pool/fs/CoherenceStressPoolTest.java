package dev.ringfuse.pool.fs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.CoherenceStress;
import dev.ringfuse.testkit.FuseMount;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testkit's {@link CoherenceStress} (issue 16) on a pool dataset (lz4, image file through io_uring):
 * /dev/fuse with four reader threads and with one, and io_uring. Before pool stopped asking for
 * AUTO_INVAL_DATA (pool/DESIGN.md, "Page cache coherence") the lockers read back stale bytes within seconds.
 */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressPoolTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(10));

    static FuseMount pool(TransportKind transport, int threads) {
        return CoherenceStress.mount(PoolFsScenarios::newFs, transport, threads, RUN);
    }

    @RegisterExtension
    static final FuseMount DEV = pool(TransportKind.DEV, 4);
    @RegisterExtension
    static final FuseMount DEV_ONE_THREAD = pool(TransportKind.DEV, 1);
    @RegisterExtension
    static final FuseMount URING = pool(TransportKind.URING, 4);

    @Test
    void devFourThreads() throws Exception {
        CoherenceStress.inDirectory(DEV.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void devOneThread() throws Exception {
        CoherenceStress.inDirectory(DEV_ONE_THREAD.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void uring() throws Exception {
        CoherenceStress.inDirectory(URING.testDir(), CoherenceStress.Plan.of(RUN));
    }
}
