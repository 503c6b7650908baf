package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random power cuts during a workload that takes, destroys and rolls back to snapshots and makes and
 * destroys clones and receives full streams. After each cut: the live dataset holds one of the states the interrupted command could
 * leave, every snapshot present holds exactly what it held when taken, every clone holds its origin's
 * contents, and verification (including dead lists and shared blocks) is clean; more work keeps it clean.
 * {@code -Dpool.crash.points=N} changes the count.
 */
class SnapshotCrashTest {
    static final int POINTS = Integer.getInteger("pool.crash.points", 120);
    static final long SEED = CrashPoints.master();

    @Test
    void randomCrashPointsAroundSnapshotCommands() throws Exception {
        dev.ringfuse.pool.space.SpaceLog.condenseAfter(5);
        try {
            int cut = CrashPoints.run("snapshot", POINTS, SEED, (seed, mode) -> onePoint(seed, mode) ? 1 : 0);
            System.out.println("snapshot crash points: " + POINTS + ", cut inside the workload: " + cut + ", master seed " + SEED);
            assertTrue(cut > POINTS / 2, "most crash points cut the workload");
        } finally { // a failure must not leave later tests in this JVM condensing every 5 txgs
            dev.ringfuse.pool.space.SpaceLog.condenseAfter(256);
        }
    }

    /** What the model allows after a cut. */
    private static final class Model {
        final List<TreeMap<Key, byte[]>> live = new ArrayList<>();
        final Map<String, TreeMap<Key, byte[]>> snaps = new LinkedHashMap<>();
        /** Snapshots (or clones, "clone:NAME") that may or may not exist after the cut: the interrupted command's. */
        final List<String> either = new ArrayList<>();
        final Map<String, String> clones = new LinkedHashMap<>();
        /** Datasets received from a full stream of a snapshot: name → that snapshot's contents. */
        final Map<String, TreeMap<Key, byte[]>> received = new LinkedHashMap<>();
    }

    static boolean onePoint(long seed, CrashDevice.Mode mode) throws Exception {
        Random rnd = new Random(seed);
        CrashDevice crash = new CrashDevice(new MemoryDevice("dev", 128L << 20));
        Pool pool = Pool.create("p", List.of(crash));
        pool.createDataset("p/ds", Map.of());
        pool.commit();
        KvWorkload w = new KvWorkload(seed);
        Model m = new Model();
        m.live.add(new TreeMap<>(w.model));
        crash.cutAtWrite(rnd.nextInt(400));
        boolean cut = false;
        List<String> order = new ArrayList<>();
        int n = 0;
        try {
            Dataset ds = pool.dataset("p/ds");
            for (int op = 0; op < 300; op++) {
                int r = rnd.nextInt(40);
                if (r == 0 || (r < 3 && order.isEmpty())) {
                    String name = "s" + n++;
                    m.live.add(new TreeMap<>(w.model));
                    m.snaps.put(name, new TreeMap<>(w.model));
                    m.either.add(name);
                    Snapshots.create(pool, "p/ds@" + name);
                    order.add(name);
                    settle(m, w);
                } else if (r == 1 && !order.isEmpty()) {
                    String name = order.get(rnd.nextInt(order.size()));
                    if (m.clones.containsValue(name)) continue;
                    m.live.add(new TreeMap<>(w.model));
                    m.either.add(name);
                    Snapshots.destroy(pool, "p/ds@" + name);
                    order.remove(name);
                    m.snaps.remove(name);
                    settle(m, w);
                } else if (r == 2 && !order.isEmpty()) {
                    String name = order.getLast();
                    m.live.add(new TreeMap<>(w.model));
                    m.live.add(new TreeMap<>(m.snaps.get(name)));
                    Snapshots.rollback(pool, "p/ds@" + name);
                    w.model.clear();
                    w.model.putAll(m.snaps.get(name));
                    settle(m, w);
                } else if (r == 3 && !order.isEmpty() && m.clones.size() < 2) {
                    String name = order.get(rnd.nextInt(order.size()));
                    String clone = "c" + n++;
                    m.live.add(new TreeMap<>(w.model));
                    m.either.add("clone:" + clone);
                    m.clones.put(clone, name);
                    Snapshots.clone(pool, "p/ds@" + name, "p/" + clone, Map.of());
                    settle(m, w);
                } else if (r == 4 && !m.clones.isEmpty()) {
                    String clone = m.clones.keySet().iterator().next();
                    m.live.add(new TreeMap<>(w.model));
                    m.either.add("clone:" + clone);
                    pool.destroyDataset("p/" + clone, null);
                    pool.commit();
                    m.clones.remove(clone);
                    settle(m, w);
                } else if (r == 5 && !order.isEmpty() && m.received.size() < 2) {
                    String name = order.get(rnd.nextInt(order.size()));
                    String target = "r" + n++;
                    java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
                    dev.ringfuse.pool.send.Sender.send(pool, "p/ds@" + name, null, stream, x -> { });
                    m.live.add(new TreeMap<>(w.model));
                    m.either.add("recv:" + target);
                    m.received.put(target, m.snaps.get(name));
                    dev.ringfuse.pool.send.Receiver.receive(pool, "p/" + target, new java.io.ByteArrayInputStream(stream.toByteArray()),
                            false, x -> { }, x -> { });
                    settle(m, w);
                } else {
                    w.step(ds);
                    if (rnd.nextInt(15) == 0) {
                        m.live.add(new TreeMap<>(w.model));
                        pool.commit();
                        settle(m, w);
                    }
                }
            }
        } catch (IOException e) {
            cut = true;
        }
        BlockDevice after = crash.afterPowerLoss(mode, rnd);
        try (Pool again = Pool.open(List.of(after))) {
            TreeMap<Key, byte[]> got = KvWorkload.read(again.dataset("p/ds"));
            boolean ok = false;
            for (TreeMap<Key, byte[]> s : m.live) ok |= KvWorkload.same(got, s);
            if (!ok) fail("live dataset is in none of the " + m.live.size() + " states the cut could leave");
            for (var e : m.snaps.entrySet()) {
                boolean exists = again.directory().snapshot(again.lookup("p/ds"), e.getKey()) != 0;
                if (!exists && !m.either.contains(e.getKey())) fail("snapshot " + e.getKey() + " vanished");
                if (exists) KvWorkload.assertSame(e.getValue(), KvWorkload.read(Snapshots.view(again, "p/ds@" + e.getKey())));
            }
            for (var e : m.clones.entrySet()) {
                boolean exists = again.lookup("p/" + e.getKey()) != 0;
                if (!exists && !m.either.contains("clone:" + e.getKey())) fail("clone " + e.getKey() + " vanished");
                if (exists) KvWorkload.assertSame(m.snaps.get(e.getValue()), KvWorkload.read(again.dataset("p/" + e.getKey())));
            }
            for (var e : m.received.entrySet()) {
                boolean exists = again.lookup("p/" + e.getKey()) != 0;
                if (!exists && !m.either.contains("recv:" + e.getKey())) fail("received " + e.getKey() + " vanished");
                if (exists) KvWorkload.assertSame(e.getValue(), KvWorkload.read(again.dataset("p/" + e.getKey())));
            }
            PoolVerifier.Report r = PoolVerifier.verify(again, null);
            if (!r.clean()) fail("verify after import: " + r.errors());
            KvWorkload more = new KvWorkload(seed + 1);
            Dataset ds = again.dataset("p/ds");
            for (int op = 0; op < 50; op++) more.step(ds);
            for (Snapshots.Info i : Snapshots.list(again, "p/ds")) {
                if (again.directory().head(i.id()).origin() == 0 && !hasClone(again, i.id())) {
                    Snapshots.destroy(again, i.name());
                    break;
                }
            }
            again.commit();
            PoolVerifier.Report r2 = PoolVerifier.verify(again, null);
            if (!r2.clean()) fail("verify after more work: " + r2.errors());
        }
        return cut;
    }

    private static boolean hasClone(Pool p, long snap) throws IOException {
        for (long id : p.directory().allHeads()) if (p.directory().head(id).origin() == snap) return true;
        return false;
    }

    /** The command completed: only its final state remains possible. */
    private static void settle(Model m, KvWorkload w) {
        m.live.clear();
        m.live.add(new TreeMap<>(w.model));
        m.either.clear();
    }
}
