package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CoherenceStress} on memfs: /dev/fuse with four reader threads and with one, and io_uring. Issue 16:
 * before the fix each failed within seconds (stale pages after an in-flight write, after an async O_DIRECT
 * write).
 */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressMemFsTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(15));

    static FuseMount memfs(TransportKind transport, int threads) {
        FuseMount m = FuseMount.of(MemFs::new)
                .options(MountOptions.defaults().withAllowOther(true).withTransport(transport).withThreads(threads))
                .timeout(CoherenceStress.timeout(RUN));
        return transport == TransportKind.URING ? m.beforeMount(() -> Files.writeString(MemFsScenarios.ENABLE_URING, "1")) : m;
    }

    @RegisterExtension
    static final FuseMount DEV = memfs(TransportKind.DEV, 4);
    @RegisterExtension
    static final FuseMount DEV_ONE_THREAD = memfs(TransportKind.DEV, 1);
    @RegisterExtension
    static final FuseMount URING = memfs(TransportKind.URING, 4);

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
