package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.CrashPoints;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.SpaceAccountingTest;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts under a mount that writes against a quota: files written until EDQUOT (whose check commits the
 * txg to count exactly, so cuts land there too), deleted to make room, fsyncs, and the quota changed as
 * `fs set` does. After import the pool verifies clean with every space counter matching its trees, the
 * quota is one of the values set, the dataset uses no more than it, and every file reads back.
 */
@Timeout(300)
class QuotaCrashMountTest {
    static final int POINTS = Integer.getInteger("pool.space.mounted.crash.points", 6);

    @Test
    void powerCutsWhileWritingAtAQuota() throws Exception {
        int quotaHits = CrashPoints.run("quota", POINTS, CrashPoints.master(), QuotaCrashMountTest::onePoint);
        System.out.println("quota crash points: " + POINTS + ", EDQUOT answers seen: " + quotaHits);
        assertTrue(quotaHits > 0, "the workload reached the quota");
    }

    /** Returns how many writes got EDQUOT before the cut. */
    static int onePoint(long seed, CrashDevice.Mode mode) throws Exception {
        Random rnd = new Random(seed);
        CrashDevice dev = new CrashDevice(new MemoryDevice("m", 128L << 20));
        Pool pool = Pool.create("qc", List.<BlockDevice>of(dev));
        pool.createDataset("qc/d", Map.of("compression", rnd.nextBoolean() ? "lz4" : "off", "recordsize", "16K"));
        pool.setProperty("qc/d", "quota", "1536K"); // well below what the workload keeps (about 20 files of 150 KB)
        pool.commit();
        Set<String> quotas = new HashSet<>(Set.of(Long.toString(1536L << 10)));
        dev.cutAtWrite(40 + rnd.nextInt(800)); // often after the first commits, so that EDQUOT is met before the cut
        Path mp = MountedFsKit.newMountpoint("pool-quota-crash");
        int[] hits = {0};
        PoolFs fs = new PoolFs(pool.dataset("qc/d"), false, 0); // commits at fsync, the dirty limit and quota checks
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(120), mp, () -> {
                for (int step = 0; step < 120; step++) {
                    Path f = mp.resolve("f" + rnd.nextInt(24));
                    int op = rnd.nextInt(12);
                    try {
                        if (op < 8) {
                            byte[] data = new byte[1 + rnd.nextInt(300_000)];
                            rnd.nextBytes(data);
                            Files.write(f, data);
                        } else if (op < 10) {
                            Files.deleteIfExists(f);
                        } else if (op == 10) {
                            try (FileChannel c = FileChannel.open(mp, StandardOpenOption.READ)) {
                                c.force(true);
                            }
                        } else {
                            String q = Long.toString((1L << 20) + rnd.nextInt(2 << 20) / 4096 * 4096L);
                            try {
                                pool.setProperty("qc/d", "quota", q); // what `fs set` does: set, commit
                                quotas.add(q);
                            } catch (IllegalArgumentException belowUsed) {
                                continue;
                            }
                            pool.commit();
                        }
                    } catch (IOException e) {
                        if (String.valueOf(e.getMessage()).contains(SpaceMountTest.EDQUOT)) {
                            hits[0]++;
                            Files.deleteIfExists(mp.resolve("f" + rnd.nextInt(24))); // deleting always works
                            continue;
                        }
                        if (pool.suspended() != null) return null; // the power cut
                        throw e;
                    }
                }
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
        }
        Pool again = Pool.open(List.<BlockDevice>of(dev.afterPowerLoss(mode, rnd)));
        PoolVerifier.Report r = PoolVerifier.verify(again, null);
        if (!r.clean()) fail("verify after the cut: " + r.errors());
        SpaceAccountingTest.assertExact(again, "qc");
        String quota = again.localProperties("qc/d").get("quota");
        if (!quotas.contains(quota)) fail("quota " + quota + " was never set (" + quotas + ")");
        long used = again.space().usage(again.lookup("qc/d")).used();
        if (used > Long.parseLong(quota) + (512L << 10)) fail("qc/d uses " + used + " past its quota " + quota);
        PoolFsMountTest.mounted(again, "qc/d", mp, () -> {
            try (Stream<Path> s = Files.list(mp)) {
                for (Path p : s.toList()) Files.readAllBytes(p); // every block verifies
            }
            return null;
        });
        PoolVerifier.Report r2 = PoolVerifier.verify(again, null);
        if (!r2.clean()) fail("verify after remounting: " + r2.errors());
        again.close();
        return hits[0];
    }
}
