package dev.ringfuse.sqlfs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.CoherenceStress;
import dev.ringfuse.testkit.FuseMount;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testkit's {@link CoherenceStress} (issue 16) on sqlfs over SQLite: /dev/fuse with four reader threads
 * and with one, and io_uring. SQLite opens keep the page cache, so this is the configuration the stress's
 * stale-page windows apply to (sqlfs/DESIGN.md, "Page cache coherence").
 */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressSqliteTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(10));

    static FuseMount sqlite(TransportKind transport, int threads) {
        Path db = TestDbs.newSqliteFile();
        return CoherenceStress.mount(() -> SqlFs.open(SqlFsOptions.of(db.toString())), transport, threads, RUN);
    }

    @RegisterExtension
    static final FuseMount DEV = sqlite(TransportKind.DEV, 4);
    @RegisterExtension
    static final FuseMount DEV_ONE_THREAD = sqlite(TransportKind.DEV, 1);
    @RegisterExtension
    static final FuseMount URING = sqlite(TransportKind.URING, 4);

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
