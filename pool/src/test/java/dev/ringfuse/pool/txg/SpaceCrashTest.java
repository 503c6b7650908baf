package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random power cuts while quotas and reservations are set and cleared (what `fs set` does: set, commit) and
 * data is written up to a quota and removed again. After each cut the pool verifies clean — which includes
 * every head's space counters against its trees — each property holds either its last committed value or
 * the one the interrupted command set, and the dataset with a quota uses no more than it (plus the B-tree
 * nodes of one txg). {@code -Dpool.space.crash.points=N} changes the count.
 */
class SpaceCrashTest {
    static final int POINTS = Integer.getInteger("pool.space.crash.points", 60);
    static final long SEED = CrashPoints.master();
    /** What a quota may be passed by: nodes written at commit are not checked ahead (DESIGN.md, "Space accounting"). */
    static final long NODE_SLACK = 512L << 10;
    /** Writes refused by a quota or a reservation, and imports that found a quota in force: the limits were met. */
    static int refused, quotasFound;

    @Test
    void randomCrashPointsAroundQuotasReservationsAndWritesNearThem() throws Exception {
        dev.ringfuse.pool.space.SpaceLog.condenseAfter(5);
        try {
            int cut = CrashPoints.run("space", POINTS, SEED, (seed, mode) -> onePoint(seed, mode) ? 1 : 0);
            System.out.println("space crash points: " + POINTS + ", cut inside the workload: " + cut + ", writes refused by a limit: "
                    + refused + ", imports with a quota in force: " + quotasFound + ", master seed " + SEED);
            assertTrue(cut > POINTS / 2, "most crash points cut the workload: " + cut);
            assertTrue(refused > 0 && quotasFound > 0, "the workload met its limits");
        } finally {
            dev.ringfuse.pool.space.SpaceLog.condenseAfter(256);
        }
    }

    /** A property's stored value as `fs get -p` would read it ("none" when absent). */
    static String stored(Pool p, String ds, String prop) throws IOException {
        String v = p.localProperties(ds).get(prop);
        return v == null ? "none" : v;
    }

    static String sizeOrNone(Random rnd, long min, long max) {
        if (rnd.nextInt(4) == 0) return rnd.nextBoolean() ? "none" : "0";
        return Long.toString((min + (long) (rnd.nextDouble() * (max - min))) / 4096 * 4096);
    }

    static String normal(String v) {
        return v.equals("0") ? "none" : v;
    }

    static boolean onePoint(long seed, CrashDevice.Mode mode) throws Exception {
        Random rnd = new Random(seed);
        CrashDevice crash = new CrashDevice(new MemoryDevice("dev", 128L << 20));
        Pool pool = Pool.create("s", List.of(crash));
        Dataset a = pool.createDataset("s/a", Map.of());
        Dataset b = pool.createDataset("s/b", Map.of());
        pool.commit();
        crash.cutAtWrite(rnd.nextInt(1000));
        String[] quota = {"none", "none"}; // committed, attempted
        String[] reservation = {"none", "none"};
        boolean cut = false;
        long blocks = 0;
        try {
            for (int op = 0; op < 250; op++) {
                int r = rnd.nextInt(12);
                if (r == 0 || r == 1) {
                    boolean q = r == 0;
                    String v = q ? sizeOrNone(rnd, 1L << 20, 8L << 20) : sizeOrNone(rnd, 1L << 20, 96L << 20);
                    try {
                        pool.setProperty(q ? "s/a" : "s/b", q ? "quota" : "reservation", v);
                    } catch (IllegalArgumentException | NoSpaceException refused) {
                        continue; // refused before anything changed (below the space used, more than is free)
                    }
                    (q ? quota : reservation)[1] = normal(v);
                    pool.commit();
                    quota[0] = quota[1];
                    reservation[0] = reservation[1];
                } else if (r < 8) {
                    Dataset ds = r < 6 ? a : b;
                    int len = 4096 * (1 + rnd.nextInt(32));
                    pool.lock().lock();
                    try {
                        try {
                            ds.checkSpace(len);
                        } catch (QuotaException | NoSpaceException full) {
                            refused++;
                            continue;
                        }
                        byte[] data = new byte[len];
                        rnd.nextBytes(data);
                        BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, len, Compression.OFF, Checksum.CRC32C, 0,
                                pool.txg() + 1, 1, false);
                        ds.born(bp);
                        Key k = new Key(1 + rnd.nextInt(64), KvWorkload.DATA, blocks++);
                        ds.tree().put(k, bp.toBytes());
                        pool.dirty();
                    } finally {
                        pool.lock().unlock();
                    }
                } else if (r < 10) {
                    Dataset ds = r == 8 ? a : b;
                    pool.lock().lock();
                    try {
                        // deletion needs no room: always allowed, even past a quota
                        Key[] first = {null};
                        ds.tree().scan(new Key(1 + rnd.nextInt(64), KvWorkload.DATA, 0), new Key(-1L, 255, -1L), (k, v) -> {
                            if (k.type() == KvWorkload.DATA) first[0] = k;
                            return first[0] == null;
                        });
                        if (first[0] != null) {
                            ds.free(BlockPointer.fromBytes(ds.tree().get(first[0])));
                            ds.tree().delete(first[0]);
                            pool.dirty();
                        }
                    } finally {
                        pool.lock().unlock();
                    }
                } else {
                    pool.commit();
                }
            }
            pool.commit();
        } catch (IOException e) {
            cut = true; // the power cut (refusals are caught where they happen)
        }
        try (Pool again = Pool.open(List.of(crash.afterPowerLoss(mode, rnd)))) {
            String q = stored(again, "s/a", "quota"), res = stored(again, "s/b", "reservation");
            if (!q.equals(quota[0]) && !q.equals(quota[1])) fail("quota " + q + " is neither " + quota[0] + " nor " + quota[1]);
            if (!res.equals(reservation[0]) && !res.equals(reservation[1])) {
                fail("reservation " + res + " is neither " + reservation[0] + " nor " + reservation[1]);
            }
            PoolVerifier.Report rep = PoolVerifier.verify(again, null);
            if (!rep.clean()) fail("verify after import: " + rep.errors());
            SpaceAccountingTest.assertExact(again, "s");
            if (!q.equals("none")) {
                quotasFound++;
                long used = again.space().usage(again.lookup("s/a")).used();
                if (used > Long.parseLong(q) + NODE_SLACK) fail("s/a uses " + used + " past its quota " + q);
            }
            // more work on the imported pool keeps it clean
            Dataset da = again.dataset("s/a");
            KvWorkload more = new KvWorkload(seed + 1);
            for (int i = 0; i < 40; i++) more.step(da);
            again.commit();
            PoolVerifier.Report rep2 = PoolVerifier.verify(again, null);
            if (!rep2.clean()) fail("verify after more work: " + rep2.errors());
        }
        return cut;
    }
}
