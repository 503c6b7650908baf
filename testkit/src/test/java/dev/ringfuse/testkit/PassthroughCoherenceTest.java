package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Two processes rewrite and verify the same regions of one file under fcntl record locks, with O_SYNC,
 * against a multi-threaded server: every region read under its lock must be exactly what the last writer
 * wrote (checksum) and never older than what this process saw before (a version that only grows). This is
 * the test libfuse's multi-threaded passthrough_ll fails. And fio's own verification of random writes.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PassthroughCoherenceTest {
    private static FuseMount mount(KernelMode kernel) {
        Path source = PassthroughScenarios.newSource();
        return FuseMount.of(() -> new PassthroughFs(PassthroughFs.Options.of(source).withKernel(kernel)))
                .options(MountOptions.defaults().withThreads(4))
                .timeout(Duration.ofMinutes(3));
    }

    @RegisterExtension
    static final FuseMount KERNEL_ON = mount(KernelMode.ON);

    @RegisterExtension
    static final FuseMount KERNEL_OFF = mount(KernelMode.OFF);

    private static final String WORKER = """
            import os, random, zlib
            path, me, rounds, regions, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
            fd = os.open(path, os.O_RDWR | os.O_SYNC)
            seen = [0] * regions
            rnd = random.Random(me)
            def check(r, data):
                version, crc = struct.unpack_from("<QI", data, 0)
                body = data[12:]
                if version and zlib.crc32(body) != crc:
                    sys.exit("torn or stale region %d version %d" % (r, version))
                if version < seen[r]:
                    sys.exit("region %d went back from version %d to %d" % (r, seen[r], version))
                seen[r] = version
                return version
            for i in range(rounds):
                r = rnd.randrange(regions)
                if rnd.random() < 0.3:
                    fcntl.lockf(fd, fcntl.LOCK_SH, size, r * size)
                    check(r, os.pread(fd, size, r * size))
                else:
                    fcntl.lockf(fd, fcntl.LOCK_EX, size, r * size)
                    v = check(r, os.pread(fd, size, r * size)) + 1
                    body = bytes([me]) + os.urandom(size - 13)
                    data = struct.pack("<QI", v, zlib.crc32(body)) + body
                    os.pwrite(fd, data, r * size)
                    if os.pread(fd, size, r * size) != data:
                        sys.exit("read back differs in region %d" % r)
                    seen[r] = v
                fcntl.lockf(fd, fcntl.LOCK_UN, size, r * size)
            print("ok", me)
            """;

    private static void twoWriters(Path dir) throws Exception {
        int regions = 16, size = 4096, rounds = 2000;
        Path file = dir.resolve("shared");
        Files.write(file, new byte[regions * size]);
        List<Procs.Child> children = new ArrayList<>();
        try {
            for (int me = 1; me <= 2; me++) {
                children.add(Procs.start(Procs.pythonCmd(WORKER, file.toString(), "" + me, "" + rounds, "" + regions, "" + size)));
            }
            for (Procs.Child c : children) {
                Procs.Result r = c.await(Duration.ofSeconds(200));
                assertEquals(0, r.exit(), r.out() + r.err());
                assertTrue(r.out().startsWith("ok"), r.out());
            }
        } finally {
            children.forEach(Procs.Child::close);
        }
    }

    /** fio writes with mixed block sizes at queue depth 16 (O_DIRECT, libaio), then verifies every block's crc32c. */
    private static void fioVerify(Path dir) throws Exception {
        assumeTrue(Procs.onPath("fio"), "fio is not installed (apt-get install fio)");
        Procs.Result r = Procs.run(Duration.ofSeconds(200), List.of("fio", "--name=verify", "--verify_state_save=0", "--directory=" + dir,
                "--size=32M", "--bsrange=4k-256k", "--rw=randwrite", "--ioengine=libaio", "--iodepth=16",
                "--direct=1", "--numjobs=2", "--verify=crc32c", "--do_verify=1", "--verify_fatal=1",
                "--group_reporting", "--minimal"));
        assertEquals(0, r.exit(), r.out() + r.err());
    }

    @Test
    void fioVerifiesEveryBlockWithKernelPassthrough() throws Exception {
        fioVerify(KERNEL_ON.testDir());
    }

    @Test
    void fioVerifiesEveryBlockThroughTheServer() throws Exception {
        fioVerify(KERNEL_OFF.testDir());
    }

    @Test
    void lockedSyncWritersNeverSeeStaleDataWithKernelPassthrough() throws Exception {
        twoWriters(KERNEL_ON.testDir());
    }

    @Test
    void lockedSyncWritersNeverSeeStaleDataThroughTheServer() throws Exception {
        twoWriters(KERNEL_OFF.testDir());
    }
}
