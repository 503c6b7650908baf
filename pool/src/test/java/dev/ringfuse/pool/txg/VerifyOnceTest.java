package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * `pool verify` reads each block once however many snapshots and clones share it: the bytes the device
 * reads equal the bytes of the distinct blocks' copies, and ten snapshots of a dataset with small changes in
 * between add only the changed blocks to the walk, not ten more trees.
 */
@Timeout(120)
class VerifyOnceTest {
    /** A memory device that counts what is read from it. */
    static final class CountingDevice implements BlockDevice {
        final MemoryDevice d;
        final AtomicLong bytesRead = new AtomicLong(), reads = new AtomicLong();

        CountingDevice(MemoryDevice d) {
            this.d = d;
        }

        @Override public long size() { return d.size(); }
        @Override public int alignment() { return d.alignment(); }
        @Override public String name() { return d.name(); }
        @Override public void write(long offset, byte[] src, int off, int len) throws IOException { d.write(offset, src, off, len); }
        @Override public void flush() { d.flush(); }
        @Override public void close() { d.close(); }

        @Override
        public void read(long offset, byte[] dst, int off, int len) throws IOException {
            reads.incrementAndGet();
            bytesRead.addAndGet(len);
            d.read(offset, dst, off, len);
        }
    }

    private static long[] verified(Pool pool, CountingDevice dev) throws IOException {
        long b0 = dev.bytesRead.get(), r0 = dev.reads.get();
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        assertTrue(r.clean(), r.errors().toString());
        long bytes = dev.bytesRead.get() - b0, reads = dev.reads.get() - r0;
        assertEquals(r.bytes(), bytes, "every copy of every distinct block read exactly once");
        return new long[] {bytes, reads, r.blocks()};
    }

    @Test
    void sharedTreesAreReadOnce() throws Exception {
        CountingDevice dev = new CountingDevice(new MemoryDevice("count", 256L << 20));
        Pool pool = Pool.create("v", List.<BlockDevice>of(dev));
        Dataset ds = pool.createDataset("v/ds", Map.of());
        KvWorkload w = new KvWorkload(7);
        for (int i = 0; i < 3000; i++) w.step(ds);
        pool.lock().lock();
        try { // metadata as a directory of 20,000 small files has it: many tree nodes, few data blocks
            Random rnd = new Random(5);
            for (int i = 0; i < 20_000; i++) {
                byte[] v = new byte[60 + rnd.nextInt(80)];
                rnd.nextBytes(v);
                ds.tree().put(new Key(1000 + i, 16, 0), v);
            }
            pool.dirty();
        } finally {
            pool.lock().unlock();
        }
        w.commit(pool);
        long[] alone = verified(pool, dev);

        int n = 10;
        long[] sum = new long[1];
        for (int s = 0; s < n; s++) {
            Snapshots.create(pool, "v/ds@s" + s);
            for (int i = 0; i < 5; i++) w.step(ds);
            w.commit(pool);
        }
        Snapshots.clone(pool, "v/ds@s3", "v/copy", Map.of());
        long[] shared = verified(pool, dev);
        for (long id : List.of(pool.lookup("v/ds"), pool.lookup("v/copy"))) sum[0] += SnapshotTest.blocks(pool, id).size();
        for (String s : pool.directory().snapshots(pool.lookup("v/ds")).keySet()) {
            sum[0] += SnapshotTest.blocks(pool, pool.directory().snapshot(pool.lookup("v/ds"), s)).size();
        }
        System.out.printf("verify alone: %d bytes in %d reads (%d blocks); with %d snapshots and a clone: %d bytes in %d reads"
                + " (%d blocks; %d block references over all the trees)%n", alone[0], alone[1], alone[2], n, shared[0], shared[1],
                shared[2], sum[0]);
        assertTrue(shared[0] < alone[0] * 3 / 2, "verify reads grow with the changes, not with the snapshots: "
                + shared[0] + " bytes against " + alone[0]);
        assertTrue(sum[0] > shared[2] * 5, "the trees share most blocks: " + sum[0] + " references, " + shared[2] + " blocks");
        pool.close();
    }
}
