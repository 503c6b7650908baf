package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random power cuts during a workload with commits ("fsyncs"), on one or two devices. After each cut the
 * pool is imported from what the devices kept: the contents must be exactly the last completed commit's
 * (or the interrupted one's, if its uberblock reached the medium) — never a mix — and full verification
 * must be clean; the imported pool must then accept more work and verify clean again. Half the commits are
 * followed by one with nothing changed, which only releases the deferred frees.
 * {@code -Dpool.crash.points=N} changes the count (crash-soak.sh runs 10,000).
 */
class CrashPointTest {
    static final int POINTS = Integer.getInteger("pool.crash.points", 200);
    static final long SEED = Long.getLong("pool.crash.seed", System.nanoTime());

    @Test
    void randomCrashPoints() throws Exception {
        dev.ringfuse.pool.space.SpaceLog.condenseAfter(5); // condensing happens inside most workloads
        try {
            Random master = new Random(SEED);
            int imported = 0;
            for (int i = 0; i < POINTS; i++) {
                long seed = master.nextLong();
                CrashDevice.Mode mode = i % 2 == 0 ? CrashDevice.Mode.PREFIX : CrashDevice.Mode.SUBSET;
                int devices = i % 3 == 0 ? 2 : 1;
                try {
                    if (onePoint(seed, mode, devices)) imported++;
                } catch (AssertionError | Exception e) {
                    throw new AssertionError("crash point " + i + " (seed " + seed + ", " + mode + ", " + devices
                            + " devices; master seed " + SEED + "): " + e, e);
                }
            }
            System.out.println("crash points: " + POINTS + ", cut inside the workload: " + imported + ", master seed " + SEED);
            assertTrue(imported > POINTS / 2, "most crash points cut the workload");
        } finally { // a failure must not leave later tests in this JVM condensing every 5 txgs
            dev.ringfuse.pool.space.SpaceLog.condenseAfter(256);
        }
    }

    /** Returns true when the power cut happened inside the workload. */
    static boolean onePoint(long seed, CrashDevice.Mode mode, int deviceCount) throws Exception {
        Random rnd = new Random(seed);
        List<CrashDevice> crash = new ArrayList<>();
        List<BlockDevice> devs = new ArrayList<>();
        for (int d = 0; d < deviceCount; d++) {
            CrashDevice c = new CrashDevice(new MemoryDevice("dev" + d, 64L << 20));
            crash.add(c);
            devs.add(c);
        }
        Pool pool = Pool.create("p", devs);
        pool.createDataset("p/ds", Map.of());
        pool.commit();
        KvWorkload w = new KvWorkload(seed);
        w.commit(pool);
        int cut = rnd.nextInt(260);
        for (CrashDevice c : crash) c.cutAtWrite(deviceCount == 1 ? cut : cut / 2);
        boolean cutHappened = false;
        try {
            Dataset ds = pool.dataset("p/ds");
            for (int op = 0; op < 400; op++) {
                w.step(ds);
                if (rnd.nextInt(12) == 0) {
                    w.commit(pool);
                    // an idle pool's next commit releases the deferred frees (the timer's): cut inside it too, and
                    // have later txgs reuse what it released
                    if (rnd.nextBoolean()) w.commit(pool);
                }
            }
            w.commit(pool);
        } catch (IOException e) {
            cutHappened = true;
        }
        List<BlockDevice> after = new ArrayList<>();
        for (CrashDevice c : crash) after.add(c.afterPowerLoss(mode, rnd));
        java.util.Collections.shuffle(after, rnd);
        try (Pool again = Pool.open(after)) {
            TreeMap<dev.ringfuse.pool.tree.Key, byte[]> got = KvWorkload.read(again.dataset("p/ds"));
            if (!KvWorkload.same(got, w.committed) && !KvWorkload.same(got, w.attempted)) {
                fail("imported state is neither the last committed nor the interrupted txg (" + got.size() + " keys, committed "
                        + w.committed.size() + ", attempted " + w.attempted.size() + ")");
            }
            PoolVerifier.Report r = PoolVerifier.verify(again, null);
            if (!r.clean()) fail("verify after import: " + r.errors());
            // the imported pool keeps working: its space map was rebuilt correctly
            KvWorkload more = new KvWorkload(seed + 1);
            Dataset ds = again.dataset("p/ds");
            for (int op = 0; op < 50; op++) more.step(ds);
            again.commit();
            PoolVerifier.Report r2 = PoolVerifier.verify(again, null);
            if (!r2.clean()) fail("verify after more work: " + r2.errors());
        }
        return cutHappened;
    }
}
