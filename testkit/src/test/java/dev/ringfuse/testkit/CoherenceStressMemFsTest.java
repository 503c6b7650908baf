package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.testkit.internal.Procs;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link CoherenceStress} on memfs: /dev/fuse with four reader threads and with one, and io_uring. Issue 16:
 * before the fix each failed within seconds (stale pages after an in-flight write, after an async O_DIRECT
 * write).
 */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressMemFsTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(15));

    static FuseMount memfs(TransportKind transport, int threads) {
        return CoherenceStress.mount(MemFs::new, transport, threads, RUN);
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

    /**
     * More async direct writes in flight than the session holds for invalidation (64 against at most 6 on
     * io_uring, 16 on /dev/fuse), beside buffered readers of the same file: replies held for an invalidation
     * must never take every ring entry or buffer the reads they wait for need (that deadlocked once).
     */
    private static void deepDirectWritesBesideReaders(FuseMount m) throws Exception {
        assumeTrue(Procs.onPath("fio"), "fio is not installed (apt-get install fio)");
        String f = m.testDir().resolve("deep").toString();
        Procs.Result r = Procs.run(Duration.ofSeconds(90), List.of("fio", "--filename=" + f, "--size=8M", "--time_based",
                "--runtime=5", "--minimal",
                "--name=w", "--rw=randwrite", "--bs=16k", "--direct=1", "--ioengine=libaio", "--iodepth=64",
                "--name=r", "--rw=randread", "--bs=64k", "--direct=0", "--ioengine=psync", "--numjobs=2"));
        assertEquals(0, r.exit(), r.out() + r.err());
    }

    @Test
    void deepDirectWritesDev() throws Exception {
        deepDirectWritesBesideReaders(DEV_ONE_THREAD);
    }

    @Test
    void deepDirectWritesUring() throws Exception {
        deepDirectWritesBesideReaders(URING);
    }
}
