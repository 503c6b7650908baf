package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.space.SpaceLog;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A full pool, the reserve, dataset create/destroy/properties, and a device that dies. */
@Timeout(60)
class SpaceAndDatasetTest {

    static BlockPointer writeBlock(Pool pool, Dataset ds, long obj, long idx, Random r) throws IOException {
        byte[] data = new byte[128 * 1024];
        r.nextBytes(data);
        pool.lock().lock();
        try {
            BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, Compression.OFF, Checksum.CRC32C, 0,
                    pool.txg() + 1, 1, false);
            ds.born(bp);
            ds.tree().put(new Key(obj, KvWorkload.DATA, idx), bp.toBytes());
            pool.dirty();
            return bp;
        } finally {
            pool.lock().unlock();
        }
    }

    @Test
    void fullPoolAnswersEnospcAndDeletionGivesSpaceBack() throws Exception {
        Pool pool = Pool.create("full", List.of(new MemoryDevice("m", 64L << 20)));
        Dataset ds = pool.createDataset("full/d", Map.of());
        Random r = new Random(1);
        int n = 0;
        NoSpaceException full = null;
        while (full == null) {
            try {
                writeBlock(pool, ds, 1, n, r);
                if (++n % 32 == 0) pool.commit();
            } catch (NoSpaceException e) {
                full = e;
            }
        }
        assertTrue(n > 200, "wrote " + n + " blocks before ENOSPC");
        pool.commit(); // a commit may use the reserve
        long freeWhenFull = pool.io().allocator().freeBytes();
        KvWorkload.deleteData(pool, ds, n);
        pool.commit();
        pool.commit(); // frees are deferred by one txg
        pool.dirty();
        pool.commit();
        assertTrue(pool.io().allocator().freeBytes() > freeWhenFull + (n - 8) * 128L * 1024, "space came back");
        writeBlock(pool, ds, 2, 0, r);
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
    }

    @Test
    void datasetsCreateDestroyAndProperties() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 128L << 20);
        try (Pool pool = Pool.create("tank", List.of(dev))) {
            pool.createDataset("tank/a", Map.of("compression", "zstd", "recordsize", "64K"));
            pool.createDataset("tank/a/b", Map.of());
            pool.createDataset("tank/c", Map.of("checksum", "sha256"));
            assertThrows(IOException.class, () -> pool.createDataset("tank/a", Map.of()));
            assertThrows(IOException.class, () -> pool.createDataset("tank/x/y", Map.of()));
            assertThrows(IllegalArgumentException.class, () -> pool.createDataset("tank/z", Map.of("recordsize", "3K")));
            assertEquals("zstd", pool.dataset("tank/a/b").property("compression"), "inherited");
            assertEquals(65536, pool.dataset("tank/a/b").recordsize());
            assertEquals("off", pool.dataset("tank/c").property("atime"), "default");
            pool.setProperty("tank/a/b", "compression", "lz4");
            Random r = new Random(2);
            Dataset c = pool.dataset("tank/c");
            for (int i = 0; i < 50; i++) writeBlock(pool, c, 1, i, r);
            pool.commit();
            assertThrows(IOException.class, () -> pool.destroyDataset("tank/a", null), "has children");
            long before = pool.io().allocator().freeBytes();
            pool.destroyDataset("tank/c", null);
            pool.commit();
            pool.dirty();
            pool.commit();
            pool.dirty();
            pool.commit();
            assertTrue(pool.io().allocator().freeBytes() >= before + 50 * 128L * 1024 - 65536, before + " -> " + pool.io().allocator().freeBytes());
            pool.export(false);
        }
        try (Pool pool = Pool.open(List.of(dev))) {
            assertEquals(List.of("tank", "tank/a", "tank/a/b"), pool.datasets());
            assertEquals("lz4", pool.dataset("tank/a/b").property("compression"));
            assertEquals(Map.of("compression", "zstd", "recordsize", "64k"), pool.localProperties("tank/a"));
            PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
            assertTrue(rep.clean(), rep.errors().toString());
        }
    }

    /**
     * The chain stays bounded, and a commit that condenses it reads nothing from the device (the chain's pointers
     * are in memory, from the commits and from the import's replay): it used to read the whole chain back, one
     * synchronous read per block under the pool lock. Verification (which counts leaked blocks) stays clean.
     */
    @Test
    void theSpaceLogIsCondensedWithoutReadingItBack() throws Exception {
        dev.ringfuse.pool.io.GatedDevice dev = new dev.ringfuse.pool.io.GatedDevice("m", 64L << 20);
        KvWorkload w = new KvWorkload(8);
        try (Pool pool = Pool.create("log", List.of(dev))) {
            Dataset ds = pool.createDataset("log/d", Map.of());
            assertEquals(2, condensingCommits(pool, ds, w, 600), "600 commits condense twice");
            assertTrue(pool.spaceLogLength() <= SpaceLog.condenseAfter(), "length " + pool.spaceLogLength());
            PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
            assertTrue(rep.clean(), rep.errors().toString());
            pool.export(false);
        }
        try (Pool pool = Pool.open(List.of(dev))) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("log/d")));
            assertTrue(condensingCommits(pool, pool.dataset("log/d"), w, 300) >= 1, "the chain replayed at import condensed");
            PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
            assertTrue(rep.clean(), rep.errors().toString());
            pool.export(false);
        }
        try (Pool pool = Pool.open(List.of(dev))) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("log/d")));
        }
    }

    /** Runs {@code n} steps, each committed; returns how many commits condensed, failing if one read the device. */
    private static int condensingCommits(Pool pool, Dataset ds, KvWorkload w, int n) throws Exception {
        dev.ringfuse.pool.io.GatedDevice dev = (dev.ringfuse.pool.io.GatedDevice) pool.vdevs().leaf(0);
        int condensed = 0;
        for (int t = 0; t < n; t++) {
            w.step(ds);
            long length = pool.spaceLogLength();
            long reads = dev.reads.get();
            w.commit(pool);
            if (pool.spaceLogLength() < length) {
                condensed++;
                assertEquals(reads, dev.reads.get(), "a condensing commit read the device");
            }
        }
        return condensed;
    }

    @Test
    void aDeviceThatDiesSuspendsThePoolWithAClearError() throws Exception {
        CrashDevice dev = new CrashDevice(new MemoryDevice("m", 64L << 20));
        Pool pool = Pool.create("dies", new ArrayList<BlockDevice>(List.of(dev)));
        Dataset ds = pool.createDataset("dies/d", Map.of());
        pool.commit();
        dev.cutAtWrite(0);
        writeBlock(pool, ds, 1, 0, new Random(3));
        IOException e = assertThrows(IOException.class, pool::commit);
        assertTrue(e.getMessage().contains("power lost"), e.getMessage());
        e = assertThrows(IOException.class, () -> pool.dataset("dies/d"));
        assertTrue(e.getMessage().contains("suspended"), e.getMessage());
        assertTrue(pool.io().stats(0).writeErrors.get() > 0);
    }
}
