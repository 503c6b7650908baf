package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts during a scrub's repairs, during a replace's resilver and config switch, and during the catch-up
 * of a side that came back after missing txgs, on 2-way mirrors of
 * {@link CrashDevice}s. One device dies at a random write (the pool goes on with the others, as with a disk
 * failing), then every device loses power. After each cut the pool must import from what the devices kept
 * (with the old or the new config), hold exactly the committed data, verify clean, and a scrub must leave
 * nothing unrepaired. {@code -Dpool.mirror.crash.points=N} changes the count per kind.
 */
@Timeout(300)
class MirrorCrashTest {
    static final int POINTS = Integer.getInteger("pool.mirror.crash.points", 20);
    static final long SIZE = 64L << 20;

    @Test
    void powerCutsDuringScrubRepairs() throws Exception {
        long master = CrashPoints.master();
        int cut = CrashPoints.run("scrub", POINTS, master, (seed, mode) -> scrubPoint(seed, mode) ? 1 : 0);
        System.out.println("scrub crash points: " + POINTS + ", a device died during the scrub's repairs: " + cut + ", master seed " + master);
        assertTrue(cut >= POINTS / 3, "most points cut the power during the repairs: " + cut);
    }

    @Test
    void powerCutsDuringResilverAndSwitch() throws Exception {
        long master = CrashPoints.master();
        int switched = CrashPoints.run("resilver", POINTS, master, (seed, mode) -> replacePoint(seed, mode) ? 1 : 0);
        System.out.println("resilver crash points: " + POINTS + ", imported with the new device as a member: " + switched
                + ", master seed " + master);
    }

    @Test
    void powerCutsDuringCatchUp() throws Exception {
        long master = Long.getLong("pool.crash.seed", System.nanoTime());
        Random seeds = new Random(master);
        int current = 0;
        for (int i = 0; i < POINTS; i++) {
            long seed = seeds.nextLong();
            try {
                if (catchUpPoint(seed, i % 2 == 0 ? CrashDevice.Mode.PREFIX : CrashDevice.Mode.SUBSET)) current++;
            } catch (Throwable t) {
                throw new AssertionError("catch-up crash point " + i + " seed " + seed + " (master " + master + "): " + t, t);
            }
        }
        System.out.println("catch-up crash points: " + POINTS + ", imported with side b current: " + current + ", master seed " + master);
    }

    /**
     * Side b misses txgs, comes back RESILVERING, and the power is cut at a random write of its catch-up (on b,
     * or on a, the side it copies from). After the import, whichever side is behind is caught up again, the
     * pool verifies and scrubs clean, and b alone then holds the committed data. Returns true when b came back
     * current (the catch-up's last commit reached it).
     */
    private static boolean catchUpPoint(long seed, CrashDevice.Mode mode) throws Exception {
        Random rnd = new Random(seed);
        MemoryDevice m0 = new MemoryDevice("a", SIZE), m1 = new MemoryDevice("b", SIZE);
        KvWorkload w = new KvWorkload(seed);
        try (Pool pool = Pool.create("p", List.of(m0, m1), List.of(0, 0))) {
            Dataset ds = pool.createDataset("p/d", Map.of());
            for (int i = 0; i < 300; i++) w.step(ds);
            w.commit(pool);
        }
        try (Pool pool = Pool.open(List.of(m0))) { // b is away
            Dataset ds = pool.dataset("p/d");
            for (int i = 0; i < 100; i++) w.step(ds);
            w.commit(pool);
        }
        CrashDevice p0 = new CrashDevice(m0.copy("a")), p1 = new CrashDevice(m1.copy("b"));
        try (Pool dry = Pool.open(List.of(p0, p1))) { // a dry run on copies counts each device's writes
            Rejoin.resilver(dry, null);
        }
        CrashDevice c0 = new CrashDevice(m0), c1 = new CrashDevice(m1);
        Pool pool = Pool.open(List.of(c0, c1));
        if (!"RESILVERING".equals(pool.vdevs().state(1))) fail("b came back as " + pool.vdevs().state(1));
        if (rnd.nextInt(3) == 0) c0.cutAtWrite(rnd.nextInt((int) p0.writes() + 1));
        else c1.cutAtWrite(rnd.nextInt((int) p1.writes() + 1));
        try {
            Rejoin.resilver(pool, null);
        } catch (IOException e) {
            // a side died: the catch-up did not complete
        }
        BlockDevice a = c0.afterPowerLoss(mode, rnd), b = c1.afterPowerLoss(mode, rnd);
        List<BlockDevice> after = new ArrayList<>(List.of(a, b));
        java.util.Collections.shuffle(after, rnd);
        boolean current;
        try (Pool again = Pool.open(after)) {
            current = again.vdevs().state(1).equals("ONLINE");
            KvWorkload.assertSame(w.committed, KvWorkload.read(again.dataset("p/d")));
            Scrub.Report r = Rejoin.resilver(again, null);
            if (r != null) assertEquals(0, r.unrepairable(), r.errors().toString());
            assertEquals("ONLINE", again.vdevs().poolState());
            checkClean(again);
        }
        try (Pool alone = Pool.open(List.of(b))) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(alone.dataset("p/d")));
            checkClean(alone);
        }
        return current;
    }

    /** Returns true when the cut device died during the scrub. */
    private static boolean scrubPoint(long seed, CrashDevice.Mode mode) throws Exception {
        Random rnd = new Random(seed);
        MemoryDevice m0 = new MemoryDevice("a", SIZE), m1 = new MemoryDevice("b", SIZE);
        CrashDevice c0 = new CrashDevice(m0), c1 = new CrashDevice(m1);
        KvWorkload w = new KvWorkload(seed);
        Pool pool = Pool.create("p", List.of(c0, c1), List.of(0, 0));
        Dataset ds = pool.createDataset("p/d", Map.of());
        for (int i = 0; i < 300; i++) w.step(ds);
        w.commit(pool);
        // damage both sides in different ranges behind the pool's back (the durable medium): repairs go to
        // both; then cut one device at a random write
        // (a gap between the ranges: no block is bad on both sides)
        MirrorTest.scribble(m1, Layout.ALLOC_START, Layout.ALLOC_START + (1 << 20), seed);
        MirrorTest.scribble(m0, Layout.ALLOC_START + (3 << 19), Layout.ALLOC_START + (3 << 20), seed + 1);
        // a dry run on copies counts the repair writes each side gets: the cut falls among them
        CrashDevice p0 = new CrashDevice(m0.copy("a")), p1 = new CrashDevice(m1.copy("b"));
        try (Pool dry = Pool.open(List.of(p0, p1))) {
            Scrub.scrub(dry, null);
        }
        boolean first = p1.writes() == 0 || (p0.writes() > 0 && rnd.nextBoolean());
        CrashDevice victim = first ? c0 : c1;
        victim.cutAtWrite(rnd.nextInt((int) (first ? p0 : p1).writes() + 1));
        try {
            Scrub.scrub(pool, null);
        } catch (IOException e) {
            // both sides gone: the scrub stops
        }
        boolean died = victim.dead();
        List<BlockDevice> after = new ArrayList<>(List.of(c0.afterPowerLoss(mode, rnd), c1.afterPowerLoss(mode, rnd)));
        java.util.Collections.shuffle(after, rnd);
        try (Pool again = Pool.open(after)) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(again.dataset("p/d")));
            checkClean(again);
        }
        return died;
    }

    /** Returns true when the import took the new config (the replace's switch reached the medium). */
    private static boolean replacePoint(long seed, CrashDevice.Mode mode) throws Exception {
        Random rnd = new Random(seed);
        MemoryDevice m0 = new MemoryDevice("a", SIZE), m1 = new MemoryDevice("b", SIZE);
        KvWorkload w = new KvWorkload(seed);
        try (Pool pool = Pool.create("p", List.of(m0, m1), List.of(0, 0))) {
            Dataset ds = pool.createDataset("p/d", Map.of());
            for (int i = 0; i < 300; i++) w.step(ds);
            w.commit(pool);
        }
        // side b is lost; a fresh device replaces it while a keeps serving. A dry run on copies counts the
        // writes each device gets, so that the cut falls anywhere in the wipe, the copies or the switch
        CrashDevice probe0 = new CrashDevice(m0.copy("a")), probe2 = new CrashDevice(new MemoryDevice("c", SIZE));
        try (Pool dry = Pool.open(List.of(probe0))) {
            Replace.replace(dry, 1, probe2, null);
        }
        CrashDevice c0 = new CrashDevice(m0), c2 = new CrashDevice(new MemoryDevice("c", SIZE));
        Pool pool = Pool.open(List.of(c0));
        if (rnd.nextInt(3) == 0) c0.cutAtWrite(rnd.nextInt((int) probe0.writes() + 1));
        else c2.cutAtWrite(rnd.nextInt((int) probe2.writes() + 1));
        try {
            Replace.replace(pool, 1, c2, null);
        } catch (IOException e) {
            // the new device or the surviving side died: the replace did not complete
        }
        List<BlockDevice> after = new ArrayList<>(List.of(c0.afterPowerLoss(mode, rnd), c2.afterPowerLoss(mode, rnd)));
        java.util.Collections.shuffle(after, rnd);
        try (Pool again = Pool.open(after)) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(again.dataset("p/d")));
            checkClean(again);
            return again.vdevs().leaf(1) != null;
        }
    }

    private static void checkClean(Pool pool) throws IOException {
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        if (!r.clean()) fail("verify after import: " + r.errors());
        Scrub.Report s = Scrub.scrub(pool, null);
        assertEquals(0, s.unrepairable(), s.errors().toString());
        Scrub.Report again = Scrub.scrub(pool, null);
        assertEquals(0, again.repaired() + again.unrepairable(), "a second scrub finds nothing: " + again);
        assertTrue(PoolVerifier.verify(pool, null).clean());
    }
}
