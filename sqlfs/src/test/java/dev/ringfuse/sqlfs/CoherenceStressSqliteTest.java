package dev.ringfuse.sqlfs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.CoherenceStress;
import dev.ringfuse.testkit.FuseMount;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
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

    @Disabled("issue 16, open: wrong bytes on SQLite with several server threads. Full run 2026-11-24 04:45 (load ~5): "
            + "the aio rewriter's 640 KiB O_DIRECT rewrite read back zeros from offset 163840 on; before the statement "
            + "cache and 60 s writer wait the same configurations answered EIO. Cause found and fixed (Chunks.write trusted "
            + "a size older than a concurrent extension); 3 x 60 s clean since; to be enabled once a 30-minute soak has run it. sqlfs/DESIGN.md")
    @Test
    void devFourThreads() throws Exception {
        CoherenceStress.inDirectory(DEV.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void devOneThread() throws Exception {
        CoherenceStress.inDirectory(DEV_ONE_THREAD.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Disabled("issue 16, open: wrong bytes on SQLite with several server threads (io_uring: the same write path; it passed in that run). Full run 2026-11-24 04:45 (load ~5): "
            + "the aio rewriter's 640 KiB O_DIRECT rewrite read back zeros from offset 163840 on; before the statement "
            + "cache and 60 s writer wait the same configurations answered EIO. Cause found and fixed (Chunks.write trusted "
            + "a size older than a concurrent extension); 3 x 60 s clean since; to be enabled once a 30-minute soak has run it. sqlfs/DESIGN.md")
    @Test
    void uring() throws Exception {
        CoherenceStress.inDirectory(URING.testDir(), CoherenceStress.Plan.of(RUN));
    }
}
