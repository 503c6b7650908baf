package dev.ringfuse.pool.txg;

import static dev.ringfuse.pool.txg.SnapshotTest.assertClean;
import static dev.ringfuse.pool.txg.SnapshotTest.blocks;
import static dev.ringfuse.pool.txg.SnapshotTest.work;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The space figures of datasets (used, referenced, usedbydataset, usedbysnapshots, usedbychildren,
 * compressratio) against an independent walk of every tree, through snapshots, clones, rollback, destroy,
 * receive and export/import; quota and reservation arithmetic; an old pool's heads get their counters at import.
 */
@Timeout(180)
public class SpaceAccountingTest {

    static long allocated(Collection<BlockPointer> bps) {
        return bps.stream().mapToLong(BlockPointer::allocated).sum();
    }

    /** Commits, then checks filesystem {@code name}'s figures (and its descendants') against the trees. */
    public static DatasetSpace.Usage assertExact(Pool pool, String name) throws IOException {
        pool.lock().lock();
        try {
            pool.commit();
            DatasetDir dir = pool.directory();
            long id = pool.lookup(name);
            DatasetHead h = dir.head(id);
            long origin = h.origin() == 0 ? 0 : dir.head(h.origin()).creationTxg();
            Map<Key, BlockPointer> live = blocks(pool, id);
            Map<Key, BlockPointer> snaps = new HashMap<>();
            for (long s : dir.snapshots(id).values()) snaps.putAll(blocks(pool, s));
            snaps.keySet().removeAll(live.keySet());
            snaps.values().removeIf(bp -> bp.birth() <= origin); // the origin's, charged to its filesystem
            DatasetSpace.Usage u = pool.space().usage(id);
            assertEquals(allocated(live.values()), u.referenced(), name + " referenced");
            assertEquals(live.values().stream().mapToLong(BlockPointer::lsize).sum(), u.logicalReferenced(), name + " logical");
            assertEquals(live.values().stream().mapToLong(BlockPointer::psize).sum(), u.compressed(), name + " compressed");
            assertEquals(allocated(live.values().stream().filter(bp -> bp.birth() > origin).toList()), u.usedByDataset(), name + " usedbydataset");
            assertEquals(allocated(snaps.values()), u.usedBySnapshots(), name + " usedbysnapshots");
            long kids = 0;
            for (String c : dir.children(id).keySet()) {
                DatasetSpace.Usage cu = assertExact(pool, name + "/" + c);
                kids += Math.max(cu.used(), cu.reservation());
            }
            assertEquals(kids, u.usedByChildren(), name + " usedbychildren");
            assertEquals(u.usedByDataset() + u.usedBySnapshots() + kids, u.used(), name + " used");
            return u;
        } finally {
            pool.lock().unlock();
        }
    }

    /** The figures without {@code available}, which moves with the pool's free space (deferred frees come back at import). */
    public static DatasetSpace.Usage counters(DatasetSpace.Usage u) {
        return new DatasetSpace.Usage(u.used(), 0, u.referenced(), u.logicalReferenced(), u.compressed(), u.usedByDataset(),
                u.usedBySnapshots(), u.usedByChildren(), u.quota(), u.reservation());
    }

    @Test
    void figuresMatchTheTreesThroughSnapshotsClonesRollbackAndImport() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Pool pool = Pool.create("p", List.of(dev));
        Dataset ds = pool.createDataset("p/ds", Map.of());
        KvWorkload w = new KvWorkload(7);
        work(w, ds, 300);
        DatasetSpace.Usage first = assertExact(pool, "p");
        assertTrue(first.usedByChildren() > 0 && first.compressRatio() >= 1.0, first.toString());
        Snapshots.create(pool, "p/ds@a");
        assertEquals(0, assertExact(pool, "p/ds").usedBySnapshots(), "a snapshot of an unchanged dataset holds nothing apart");
        work(w, ds, 300);
        Snapshots.create(pool, "p/ds@b");
        work(w, ds, 300);
        DatasetSpace.Usage withSnaps = assertExact(pool, "p/ds");
        assertTrue(withSnaps.usedBySnapshots() > 0, "rewritten blocks are held by the snapshots");

        // a clone owns nothing at first, then what it writes; its snapshots' blocks born after the origin are its own
        Dataset clone = Snapshots.clone(pool, "p/ds@a", "p/c", Map.of());
        assertEquals(0, assertExact(pool, "p/c").usedByDataset());
        KvWorkload wc = new KvWorkload(8);
        work(wc, clone, 200);
        Snapshots.create(pool, "p/c@x");
        work(wc, clone, 200);
        assertExact(pool, "p");
        long before = assertExact(pool, "p/c").usedBySnapshots();
        long freed = Snapshots.destroy(pool, "p/c@x");
        assertEquals(before - freed, assertExact(pool, "p/c").usedBySnapshots(), "destroying the clone's only snapshot");

        // destroying b frees exactly what usedbysnapshots loses; a rollback returns the dead list to the dataset
        before = assertExact(pool, "p/ds").usedBySnapshots();
        freed = Snapshots.destroy(pool, "p/ds@b");
        assertEquals(before - freed, assertExact(pool, "p/ds").usedBySnapshots());
        pool.destroyDataset("p/c", null);
        Snapshots.rollback(pool, "p/ds@a");
        DatasetSpace.Usage back = assertExact(pool, "p/ds");
        assertEquals(0, back.usedBySnapshots(), "right after a rollback the snapshot and the dataset are one tree");

        // a received dataset and a nested one count toward their parents
        Snapshots.create(pool, "p/ds@c");
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        Sender.send(pool, "p/ds@c", null, stream, x -> { });
        Receiver.receive(pool, "p/r", new java.io.ByteArrayInputStream(stream.toByteArray()), false, x -> { }, x -> { });
        Dataset nested = pool.createDataset("p/ds/n", Map.of());
        work(new KvWorkload(9), nested, 100);
        work(new KvWorkload(11), ds, 100); // a fresh model: the rollback took w's later keys away
        DatasetSpace.Usage root = assertExact(pool, "p");
        assertClean(pool);
        DatasetSpace.Usage dsBefore = assertExact(pool, "p/ds");
        pool.close();

        Pool again = Pool.open(List.of(dev));
        assertEquals(counters(root), counters(assertExact(again, "p")), "figures survive export and import");
        assertEquals(counters(dsBefore), counters(assertExact(again, "p/ds")));
        assertClean(again);
        again.close();
    }

    @Test
    void quotaAndReservationArithmetic() throws Exception {
        Pool pool = Pool.create("q", List.of(new MemoryDevice("m", 256L << 20)));
        Dataset a = pool.createDataset("q/a", Map.of());
        Dataset b = pool.createDataset("q/b", Map.of());
        work(new KvWorkload(1), a, 200);
        long usedA = assertExact(pool, "q/a").used();
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> pool.setProperty("q/a", "quota", Long.toString(usedA - 4096)));
        assertTrue(low.getMessage().contains("less than the space used"), low.getMessage());
        pool.setProperty("q/a", "quota", "32M");
        var alloc = pool.io().allocator();
        long poolFree = alloc.freeBytes() - alloc.reserve();
        assertEquals(Math.min((32L << 20) - usedA, poolFree), pool.space().usage(a.id()).available(), "quota binds a");

        // b reserves 64M: a (quota 32M) is unaffected while the pool has room; the root sees b's reservation as used
        pool.setProperty("q/b", "reservation", "64M");
        pool.commit();
        DatasetSpace.Usage ub = assertExact(pool, "q/b");
        DatasetSpace.Usage root = assertExact(pool, "q");
        assertTrue(root.usedByChildren() >= 64L << 20, root.toString());
        poolFree = alloc.freeBytes() - alloc.reserve();
        long unusedB = (64L << 20) - ub.used();
        assertEquals(poolFree, ub.available(), "b's own reservation is available to b");
        assertEquals(poolFree - unusedB, pool.space().usage(pool.lookup("q")).available(), "the root may not use b's reservation");
        NoSpaceException tooBig = assertThrows(NoSpaceException.class, () -> pool.setProperty("q/b", "reservation", "1T"));
        assertTrue(tooBig.getMessage().contains("cannot reserve"), tooBig.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pool.setProperty("q/a", "reservation", "64M"), "above a's quota");

        // none and 0 clear; quota and reservation are not inherited, but a parent's quota bounds its children
        Dataset child = pool.createDataset("q/a/kid", Map.of());
        assertEquals("none", child.property("quota"));
        pool.lock().lock();
        try {
            assertThrows(QuotaException.class, () -> child.checkSpace(32L << 20), "the parent's quota binds the child");
            child.checkSpace(1L << 20);
            // the pool side: b's unused reservation is not the root's to take
            long rootRoom = pool.space().usage(pool.lookup("q")).available();
            Dataset top = pool.dataset("q");
            assertThrows(NoSpaceException.class, () -> top.checkSpace(rootRoom + 4096));
            top.checkSpace(rootRoom);
        } finally {
            pool.lock().unlock();
        }
        pool.setProperty("q/b", "reservation", "none");
        pool.setProperty("q/a", "quota", "0");
        assertEquals(0, pool.space().usage(a.id()).quota());
        assertEquals(0, pool.space().usage(b.id()).reservation());
        assertClean(pool);
        pool.close();
    }

    @Test
    void headsOfAnOlderPoolGetTheirCountersAtImport() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 128L << 20);
        Pool pool = Pool.create("o", List.of(dev));
        Dataset ds = pool.createDataset("o/ds", Map.of());
        KvWorkload w = new KvWorkload(3);
        work(w, ds, 200);
        Snapshots.create(pool, "o/ds@s");
        work(w, ds, 200);
        DatasetSpace.Usage want = assertExact(pool, "o/ds");
        // rewrite every head as format 1 wrote it: no extension after the name, flags 0, data-only sizes
        pool.lock().lock();
        try {
            for (long id : pool.directory().allHeads()) {
                byte[] now = pool.directory().tree().get(new Key(id, DatasetDir.HEAD, 0));
                int nameLen = ByteBuffer.wrap(now).order(ByteOrder.LITTLE_ENDIAN).getShort(328) & 0xFFFF;
                byte[] old = Arrays.copyOf(now, 330 + nameLen);
                ByteBuffer.wrap(old).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 0).putLong(184, 12345).putLong(192, 4096);
                pool.directory().tree().put(new Key(id, DatasetDir.HEAD, 0), old);
            }
            pool.forget(ds.id());
            pool.dirty();
            pool.commit();
        } finally {
            pool.lock().unlock();
        }
        pool.close();
        Pool again = Pool.open(List.of(dev));
        assertEquals(counters(want), counters(assertExact(again, "o/ds")), "counters recomputed from the trees");
        assertClean(again);
        again.close();
        Pool third = Pool.open(List.of(dev));
        assertTrue(third.directory().head(third.lookup("o/ds")).counted(), "the upgrade was committed");
        assertClean(third);
        third.close();
    }
}
