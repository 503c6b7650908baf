package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.tree.Key;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The commit after a deleting one, with nothing changed, releases its deferred frees (DESIGN.md, "Deferred
 * frees"), and only that one: an idle pool then stops committing, as it did before.
 */
@Timeout(60)
class IdleReleaseTest {
    @Test
    void oneEmptyCommitReleasesTheDeferredFreesAndThenTheIdlePoolStaysPut() throws Exception {
        Pool pool = Pool.create("ir", List.of(new MemoryDevice("m", 64L << 20)));
        Dataset ds = pool.createDataset("ir/d", Map.of());
        Random r = new Random(2);
        for (int i = 0; i < 64; i++) SpaceAndDatasetTest.writeBlock(pool, ds, 1, i, r);
        pool.commit();
        pool.commit(); // releases the first commit's frees (the MOS it replaced)
        long before = pool.io().allocator().freeBytes();
        KvWorkload.deleteData(pool, ds, 64);
        pool.commit();
        var a = pool.io().allocator();
        assertTrue(a.freeBytes() < before + (1L << 20), "deferred while the deleting txg is the newest durable one");
        long deleting = pool.txg();

        pool.commit(); // nothing changed
        assertEquals(deleting + 1, pool.txg(), "one more txg, to release the frees");
        assertTrue(a.freeBytes() >= before + (8L << 20) - (256 << 10), "8 MiB back, less the new txgs' metadata: " + (a.freeBytes() - before));

        pool.commit();
        pool.commit();
        assertEquals(deleting + 1, pool.txg(), "then the idle pool commits nothing: the releasing txg's own frees wait");
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
        assertEquals(deleting + 1, pool.txg(), "nor does closing it");
    }
}
