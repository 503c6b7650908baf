package dev.ringfuse.sqlfs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.sqlfs.testserver.PgServer;
import dev.ringfuse.testkit.CoherenceStress;
import dev.ringfuse.testkit.FuseMount;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testkit's {@link CoherenceStress} (issue 16) on sqlfs over a real PostgreSQL server (started for this
 * class): /dev/fuse with one reader thread, io_uring with four. PostgreSQL opens drop the page cache
 * (close-to-open consistency), the same defence passthrough has (sqlfs/DESIGN.md, "Page cache coherence").
 */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressPostgresTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(10));
    static final PgServer PG = PgServer.start();

    static FuseMount postgres(TransportKind transport, int threads) {
        return CoherenceStress.mount(() -> SqlFs.open(SqlFsOptions.of(PG.newDatabase())), transport, threads, RUN);
    }

    /** Registered first, so its afterAll runs last: the server stops only after both mounts are gone. */
    @RegisterExtension
    @Order(1)
    static final AfterAllCallback STOP_SERVER = context -> PG.close();
    @RegisterExtension
    @Order(2)
    static final FuseMount DEV_ONE_THREAD = postgres(TransportKind.DEV, 1);
    @RegisterExtension
    @Order(3)
    static final FuseMount URING = postgres(TransportKind.URING, 4);

    @Test
    void devOneThread() throws Exception {
        CoherenceStress.inDirectory(DEV_ONE_THREAD.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void uring() throws Exception {
        CoherenceStress.inDirectory(URING.testDir(), CoherenceStress.Plan.of(RUN));
    }
}
