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
 * a checksum error counted once, whatever its compression.
 */
@Timeout(60)
class MergedReadTest {
    static final int RECORD = 128 << 10;

    @Test
    void adjacentBlocksAreReadTogetherAndABadOneAmongThemFailsAlone() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Random rnd = new Random(15);
        List<BlockPointer> bps = new ArrayList<>();
        List<byte[]> data = new ArrayList<>();
        try (Pool pool = Pool.create("mr", List.<BlockDevice>of(dev))) {
            Dataset ds = pool.createDataset("mr/d", Map.of());
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
            // one byte of block 5 (compressed) and of block 10 (raw) flipped on the device
            for (int bad : new int[] {5, 10}) {
                Dva d = bps.get(bad).dvas()[0];
                byte[] one = new byte[4096];
                dev.read(d.offset(), one, 0, one.length);
                one[100] ^= 0x40;
                dev.write(d.offset(), one, 0, one.length);
            }
            pool.io().cache().clear();
            long reads = pool.io().aheadReads(), hits = pool.io().aheadHits();
            BlockIo.AheadWindow w = pool.io().aheadWindow();
            for (BlockPointer bp : bps) assertTrue(w.prefetch(bp));
            w.finish();
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
}
