package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Snapshots through the pool API: constant-time creation, dead lists, destroy freeing exactly the blocks
 * only the snapshot referenced (computed independently by walking every tree), rollback and clones, all
 * surviving an export and import with a clean verification.
 */
@Timeout(120)
class SnapshotTest {

    /** Every block (nodes and data) reachable from dataset {@code id}'s committed root, by first-copy place. */
    static Map<Key, BlockPointer> blocks(Pool pool, long id) throws IOException {
        Map<Key, BlockPointer> out = new HashMap<>();
        pool.lock().lock();
        try {
            DatasetHead h = pool.directory().head(id);
            if (h.root().isHole()) return out;
            BTree t = new BTree(pool.io(), Snapshots.treeId(pool.directory(), id, h), h.root());
            t.verify(bp -> out.put(DatasetDir.deadKey(0, bp), bp), (k, v) -> {
                if (k.type() == KvWorkload.DATA) {
                    BlockPointer bp = BlockPointer.fromBytes(v);
                    out.put(DatasetDir.deadKey(0, bp), bp);
                }
                return true;
            });
            return out;
        } finally {
            pool.lock().unlock();
        }
    }

    /** Bytes of blocks {@code of} references that none of {@code others} does. */
    static long onlyIn(Pool pool, long of, List<Long> others) throws IOException {
        Map<Key, BlockPointer> mine = new HashMap<>(blocks(pool, of));
        for (long o : others) mine.keySet().removeAll(blocks(pool, o).keySet());
        return mine.values().stream().mapToLong(BlockPointer::allocated).sum();
    }

    static void assertClean(Pool pool) throws IOException {
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        assertTrue(r.clean(), r.errors().toString());
    }

    static void work(KvWorkload w, Dataset ds, int steps) throws IOException {
        for (int i = 0; i < steps; i++) w.step(ds);
    }

    @Test
    void destroyFreesExactlyWhatOnlyTheSnapshotReferenced() throws Exception {
        Pool pool = Pool.create("p", List.of(new MemoryDevice("m", 256L << 20)));
        Dataset ds = pool.createDataset("p/ds", Map.of());
        KvWorkload w = new KvWorkload(42);
        work(w, ds, 600);
        long a = Snapshots.create(pool, "p/ds@a");
        TreeMap<Key, byte[]> atA = new TreeMap<>(w.model);
        work(w, ds, 400);
        long b = Snapshots.create(pool, "p/ds@b");
        work(w, ds, 400);
        long c = Snapshots.create(pool, "p/ds@c");
        work(w, ds, 300);
        pool.commit();
        assertClean(pool);
        KvWorkload.assertSame(atA, KvWorkload.read(Snapshots.view(pool, "p/ds@a")));
        assertEquals(List.of("p/ds@a", "p/ds@b", "p/ds@c"), Snapshots.list(pool, "p/ds").stream().map(Snapshots.Info::name).toList());

        // b sits between a and c: what only it references is what destroying it must free, byte for byte
        long expected = onlyIn(pool, b, List.of(a, c, ds.id()));
        long listed = Snapshots.list(pool, "p/ds").get(1).used();
        assertTrue(expected > 0, "the workload changed blocks between a and c");
        long freed = Snapshots.destroy(pool, "p/ds@b");
        assertEquals(expected, freed, "freed by destroy");
        assertEquals(expected, listed, "USED shown by list");
        assertClean(pool);

        // the oldest snapshot, then the newest (whose successor is the live dataset)
        expected = onlyIn(pool, a, List.of(c, ds.id()));
        assertEquals(expected, Snapshots.destroy(pool, "p/ds@a"));
        assertClean(pool);
        expected = onlyIn(pool, c, List.of(ds.id()));
        assertEquals(expected, Snapshots.destroy(pool, "p/ds@c"));
        assertClean(pool);

        // with no snapshot left every block is the live dataset's and nothing is on a dead list
        work(w, ds, 200);
        pool.commit();
        assertClean(pool);
        KvWorkload.assertSame(w.model, KvWorkload.read(ds));
        pool.close();
    }

    @Test
    void snapshotTakesConstantTimeWhateverTheDatasetSize() throws Exception {
        Pool pool = Pool.create("p", List.of(new MemoryDevice("m", 512L << 20)));
        Dataset small = pool.createDataset("p/small", Map.of());
        Dataset big = pool.createDataset("p/big", Map.of());
        pool.lock().lock();
        try {
            for (int i = 0; i < 10; i++) small.tree().put(new Key(i + 2, 16, 0), new byte[120]);
            for (int i = 0; i < 100_000; i++) big.tree().put(new Key(i + 2, 16, 0), new byte[120]);
            pool.dirty();
        } finally {
            pool.lock().unlock();
        }
        pool.commit();
        long nodesBefore = pool.io().allocator().capacity() - pool.io().allocator().freeBytes();
        long[] took = new long[2];
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            Snapshots.create(pool, "p/small@s" + round);
            long t1 = System.nanoTime();
            Snapshots.create(pool, "p/big@s" + round);
            long t2 = System.nanoTime();
            took[0] = Math.max(took[0], t1 - t0);
            took[1] = Math.max(took[1], t2 - t1);
        }
        long grown = pool.io().allocator().capacity() - pool.io().allocator().freeBytes() - nodesBefore;
        System.out.printf("snapshot of 10 keys: max %.2f ms; of 100,000 keys: max %.2f ms; 10 snapshots grew the pool by %d bytes%n",
                took[0] / 1e6, took[1] / 1e6, grown);
        // space does not depend on the size: a snapshot adds a head and a name to the directory, no tree block
        assertTrue(grown < 4L << 20, "snapshots copied the tree: " + grown + " bytes");
        assertClean(pool);
        pool.close();
    }

    @Test
    void rollbackRestoresTheSnapshotAndFreesWhatCameAfter() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Pool pool = Pool.create("p", List.of(dev));
        Dataset ds = pool.createDataset("p/ds", Map.of());
        KvWorkload w = new KvWorkload(7);
        work(w, ds, 500);
        Snapshots.create(pool, "p/ds@one");
        TreeMap<Key, byte[]> atOne = new TreeMap<>(w.model);
        work(w, ds, 500);
        Snapshots.create(pool, "p/ds@two");
        TreeMap<Key, byte[]> atTwo = new TreeMap<>(w.model);
        work(w, ds, 500);
        IOException notNewest = assertThrows(IOException.class, () -> Snapshots.rollback(pool, "p/ds@one"));
        assertTrue(notNewest.getMessage().contains("most recent"), notNewest.getMessage());
        Snapshots.rollback(pool, "p/ds@two");
        KvWorkload.assertSame(atTwo, KvWorkload.read(ds));
        assertClean(pool);
        assertEquals(pool.directory().head(pool.lookup("p/ds@two".split("@")[0])).root(), Snapshots.view(pool, "p/ds@two").head().root());
        Snapshots.destroy(pool, "p/ds@two");
        Snapshots.rollback(pool, "p/ds@one");
        KvWorkload.assertSame(atOne, KvWorkload.read(ds));
        // the dataset keeps working after the rollback, and the state survives an import
        w.model.clear();
        w.model.putAll(atOne);
        work(w, ds, 300);
        pool.close();
        Pool again = Pool.open(List.of(dev));
        KvWorkload.assertSame(w.model, KvWorkload.read(again.dataset("p/ds")));
        KvWorkload.assertSame(atOne, KvWorkload.read(Snapshots.view(again, "p/ds@one")));
        assertClean(again);
        again.close();
    }

    @Test
    void cloneSharesBlocksAndIsIndependent() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Pool pool = Pool.create("p", List.of(dev));
        Dataset ds = pool.createDataset("p/ds", Map.of());
        KvWorkload w = new KvWorkload(9);
        work(w, ds, 600);
        Snapshots.create(pool, "p/ds@base");
        TreeMap<Key, byte[]> base = new TreeMap<>(w.model);
        long before = pool.io().allocator().capacity() - pool.io().allocator().freeBytes();
        Dataset clone = Snapshots.clone(pool, "p/ds@base", "p/copy", Map.of());
        long after = pool.io().allocator().capacity() - pool.io().allocator().freeBytes();
        assertTrue(after - before < 1L << 20, "a clone copies nothing: " + (after - before));
        KvWorkload.assertSame(base, KvWorkload.read(clone));
        assertEquals("p/ds@base", Snapshots.origin(pool, "p/copy"));

        KvWorkload wc = new KvWorkload(10);
        wc.model.putAll(base);
        work(wc, clone, 400);
        work(w, ds, 400);
        pool.commit();
        KvWorkload.assertSame(wc.model, KvWorkload.read(clone));
        KvWorkload.assertSame(w.model, KvWorkload.read(ds));
        KvWorkload.assertSame(base, KvWorkload.read(Snapshots.view(pool, "p/ds@base")));
        assertClean(pool);

        // a snapshot of the clone, and a rollback of the clone to it
        Snapshots.create(pool, "p/copy@c1");
        TreeMap<Key, byte[]> atC1 = new TreeMap<>(wc.model);
        work(wc, clone, 200);
        Snapshots.rollback(pool, "p/copy@c1");
        KvWorkload.assertSame(atC1, KvWorkload.read(clone));
        assertClean(pool);

        IOException dependent = assertThrows(IOException.class, () -> Snapshots.destroy(pool, "p/ds@base"));
        assertTrue(dependent.getMessage().contains("clones"), dependent.getMessage());
        IOException hasSnaps = assertThrows(IOException.class, () -> pool.destroyDataset("p/copy", null));
        assertTrue(hasSnaps.getMessage().contains("snapshots"), hasSnaps.getMessage());
        Snapshots.destroy(pool, "p/copy@c1");
        pool.destroyDataset("p/copy", null);
        pool.commit();
        assertClean(pool);
        Snapshots.destroy(pool, "p/ds@base");
        assertClean(pool);
        pool.close();
        Pool again = Pool.open(List.of(dev));
        KvWorkload.assertSame(w.model, KvWorkload.read(again.dataset("p/ds")));
        assertClean(again);
        again.close();
    }

    @Test
    void badNamesAndMissingSnapshotsAreClearErrors() throws Exception {
        Pool pool = Pool.create("p", List.of(new MemoryDevice("m", 64L << 20)));
        pool.createDataset("p/ds", Map.of());
        assertThrows(IllegalArgumentException.class, () -> Snapshots.create(pool, "p/ds"));
        assertThrows(IllegalArgumentException.class, () -> Snapshots.create(pool, "p/ds@a/b"));
        assertThrows(IOException.class, () -> Snapshots.create(pool, "p/nope@a"));
        Snapshots.create(pool, "p/ds@a");
        IOException twice = assertThrows(IOException.class, () -> Snapshots.create(pool, "p/ds@a"));
        assertTrue(twice.getMessage().contains("already exists"));
        IOException missing = assertThrows(IOException.class, () -> Snapshots.destroy(pool, "p/ds@b"));
        assertTrue(missing.getMessage().contains("does not exist"));
        assertClean(pool);
        pool.close();
    }
}
