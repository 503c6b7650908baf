package dev.ringfuse.pool.fs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.CoherenceStress;
import dev.ringfuse.testkit.FuseMount;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CoherenceStressPoolTest}'s stress on a dataset mounted with the kernel's writeback cache (io_uring, four
 * threads): the lockers' shared pages and the async O_DIRECT rewrites read back buffered must show no stale
 * bytes when the page cache holds writes the pool has not seen yet (pool/DESIGN.md, "Writeback cache").
 */
@Timeout(value = 10, unit = TimeUnit.HOURS) // the mount's own timeout bounds the test
class CoherenceStressWritebackPoolTest {
    @RegisterExtension
    static final FuseMount URING = CoherenceStress.mount(() -> PoolFsScenarios.newFs(true), TransportKind.URING, 4,
            CoherenceStressPoolTest.RUN);

    @Test
    void uring() throws Exception {
        CoherenceStress.inDirectory(URING.testDir(), CoherenceStress.Plan.of(CoherenceStressPoolTest.RUN));
    }
}
