package dev.ringfuse.pool.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Read-ahead reads file blocks stored one after another by one device read of up to {@link BlockIo#MERGE_BYTES},
 * and a bad block inside such a read costs only itself: its neighbours are served from the read, it fails with
 * a checksum error counted once, whatever its compression; a bad mirror side met by a merged read is counted
 * and healed; a merged `pool verify` read that fails is retried block by block.
 */
@Timeout(60)
class MergedReadTest {
    static final int RECORD = 128 << 10;

    /** 16 records written one after another into {@code pool} (odd ones compressible, every fourth from 1 lz4), committed. */
    static List<BlockPointer> fill(Pool pool, List<byte[]> data) throws Exception {
        Random rnd = new Random(15);
        List<BlockPointer> bps = new ArrayList<>();
        Dataset ds = pool.createDataset(pool.name() + "/d", Map.of());
        pool.lock().lock();
        try {
            for (int i = 0; i < 16; i++) {
                byte[] b = new byte[RECORD];
                if (i % 2 == 0) rnd.nextBytes(b);
                else for (int j = 0; j < b.length; j++) b[j] = (byte) (j / 100 + i); // compresses
                Compression c = i % 4 == 1 ? Compression.LZ4 : Compression.OFF;
                BlockPointer bp = pool.io().write(BlockType.FILE_DATA, b, b.length, c, Checksum.CRC32C, 0, pool.txg() + 1, 1, false);
                ds.born(bp);
                ds.tree().put(new Key(100, 80, i), bp.toBytes());
                bps.add(bp);
                data.add(b);
            }
        } finally {
            pool.lock().unlock();
        }
        pool.commit();
        for (int i = 1; i < bps.size(); i++) {
            assertTrue(BlockIo.follows(bps.get(i - 1), bps.get(i)), "block " + i + " lies right after block " + (i - 1));
        }
        return bps;
    }

    /** Flips one byte of the first 4 KiB of {@code bp}'s first copy on {@code dev}. */
    static void flip(BlockDevice dev, BlockPointer bp) throws Exception {
        Dva d = bp.dvas()[0];
        byte[] one = new byte[4096];
        dev.read(d.offset(), one, 0, one.length);
        one[100] ^= 0x40;
        dev.write(d.offset(), one, 0, one.length);
    }

    /** Offers every block to one read-ahead window and starts its reads. */
    static void readAhead(Pool pool, List<BlockPointer> bps) {
        BlockIo.AheadWindow w = pool.io().aheadWindow();
        for (BlockPointer bp : bps) assertTrue(w.prefetch(bp));
        w.finish();
    }

    @Test
    void adjacentBlocksAreReadTogetherAndABadOneAmongThemFailsAlone() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        List<byte[]> data = new ArrayList<>();
        try (Pool pool = Pool.create("mr", List.<BlockDevice>of(dev))) {
            List<BlockPointer> bps = fill(pool, data);
            // one byte of block 5 (compressed) and of block 10 (raw) flipped on the device
            for (int bad : new int[] {5, 10}) flip(dev, bps.get(bad));
            pool.io().cache().clear();
            long reads = pool.io().aheadReads(), hits = pool.io().aheadHits();
            readAhead(pool, bps);
            long stored = 0;
            for (BlockPointer bp : bps) stored += bp.dvas()[0].asize();
            long expected = (stored + BlockIo.MERGE_BYTES - 1) / BlockIo.MERGE_BYTES;
            assertTrue(pool.io().aheadReads() - reads <= expected + 1,
                    (pool.io().aheadReads() - reads) + " device reads for " + stored + " bytes stored one after another");
            for (int i = 0; i < bps.size(); i++) {
                BlockPointer bp = bps.get(i);
                if (i == 5 || i == 10) {
                    assertThrows(ChecksumException.class, () -> pool.io().read(bp), "block " + i);
                } else {
                    assertArrayEquals(data.get(i), pool.io().read(bp), "block " + i);
                }
            }
            assertEquals(14, pool.io().aheadHits() - hits, "every good block came from the merged reads");
            assertEquals(2, pool.io().stats(0).checksumErrors.get(), "each bad block counted once");
            assertEquals(0, pool.io().aheadBytes(), "nothing left counted against the budget");
        }
    }

    /**
     * A merged read on a mirror reads the side chosen for its first block; a bad copy met there, of a block whose
     * own reads would start on the other side, is still counted on its side and healed (before, the retry started
     * on the good side and stopped there: the bad copy stayed until a scrub).
     */
    @Test
    void aBadMirrorSideMetByAMergedReadIsCountedAndHealed() throws Exception {
        MemoryDevice a = new MemoryDevice("a", 256L << 20), b = new MemoryDevice("b", 256L << 20);
        List<byte[]> data = new ArrayList<>();
        try (Pool pool = Pool.create("mm", List.<BlockDevice>of(a, b), List.of(0, 0))) {
            MirrorDevice m = (MirrorDevice) pool.io().device(0);
            List<BlockPointer> bps = fill(pool, data);
            int side = m.firstSide(bps.getFirst().dvas()[0].offset());
            int firstRun = 0; // the blocks the first merged read covers, as AheadWindow cuts them
            for (long bytes = 0; firstRun < bps.size() && bytes + bps.get(firstRun).dvas()[0].asize() <= BlockIo.MERGE_BYTES; firstRun++) {
                bytes += bps.get(firstRun).dvas()[0].asize();
            }
            int bad = -1;
            for (int i = firstRun - 1; i > 0 && bad < 0; i--) {
                if (m.firstSide(bps.get(i).dvas()[0].offset()) != side && bps.get(i).compression() == Compression.OFF) bad = i;
            }
            assertTrue(bad > 0, "a raw block of the first merged read whose own reads start on the other side");
            flip(m.side(side), bps.get(bad));
            pool.io().cache().clear();
            readAhead(pool, bps);
            for (int i = 0; i < bps.size(); i++) assertArrayEquals(data.get(i), pool.io().read(bps.get(i)), "block " + i);
            assertEquals(1, m.stats(side).checksumErrors.get(), "the bad copy counted on its side");
            assertEquals(0, m.stats(1 - side).checksumErrors.get());
            Dva d = bps.get(bad).dvas()[0];
            byte[] healed = new byte[(int) d.asize()], other = new byte[(int) d.asize()];
            m.side(side).read(d.offset(), healed, 0, healed.length);
            m.side(1 - side).read(d.offset(), other, 0, other.length);
            assertArrayEquals(other, healed, "the bad side was rewritten from the good one");
            assertEquals(0, pool.io().aheadBytes(), "nothing left counted against the budget");
        }
    }

    /**
     * `pool verify` reads adjacent blocks by one device read; when that read fails (one unreadable sector), each
     * block is read again alone, so that only the block on the bad sector is reported and counted.
     */
    @Test
    void aFailedMergedVerifyReadReportsOnlyTheBlockThatFailsAlone() throws Exception {
        GatedDevice dev = new GatedDevice("g", 256L << 20);
        List<byte[]> data = new ArrayList<>();
        try (Pool pool = Pool.create("mv", List.<BlockDevice>of(dev))) {
            List<BlockPointer> bps = fill(pool, data);
            Dva d = bps.get(7).dvas()[0];
            dev.badFrom = d.offset() + 4096;
            dev.badTo = d.offset() + 8192;
            Map<Integer, String> why = new java.util.TreeMap<>();
            try (VerifyWindow w = pool.io().verifyWindow((bp, err) -> { if (err != null) why.put(bps.indexOf(bp), err); })) {
                for (BlockPointer bp : bps) w.add(bp);
            }
            assertEquals(java.util.Set.of(7), why.keySet(), "only the block on the bad sector: " + why);
            assertEquals(1, pool.io().stats(0).readErrors.get(), "counted once");
            assertEquals(0, pool.io().stats(0).checksumErrors.get());
        }
    }
}
