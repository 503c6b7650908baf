package dev.ringfuse.pool.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Dva;
import org.junit.jupiter.api.Test;

/** The 2Q block cache: what a scan leaves behind, and what it keeps of blocks used again. */
class BlockCacheTest {
    private static final int K = 1024;

    /** A pointer to a 1 KiB block at sector {@code n}, its checksum's first word {@code n} too. */
    private static BlockPointer bp(int n) {
        byte[] sum = new byte[Checksum.SIZE];
        sum[0] = (byte) n;
        sum[1] = (byte) (n >> 8);
        return new BlockPointer(new Dva[] {new Dva(0, (long) n * 512, 1024), Dva.EMPTY, Dva.EMPTY}, K, K,
                BlockType.FILE_DATA, Compression.OFF, Checksum.CRC32C, 0, 7, 1, sum);
    }

    /** Capacity 64 KiB: a fresh FIFO of 16 KiB (a quarter), the reused list the rest. */
    private final BlockCache cache = new BlockCache(64 * K);

    @Test
    void aBlockReadOnceLeavesAfterSixteenNewer() {
        byte[] first = new byte[K];
        cache.put(bp(0), first);
        for (int i = 0; i < 40; i++) assertSame(first, cache.get(bp(0)), "uses while fresh change nothing");
        for (int i = 1; i <= 15; i++) cache.put(bp(i), new byte[K]);
        assertSame(first, cache.get(bp(0)));
        cache.put(bp(16), new byte[K]);
        assertNull(cache.get(bp(0)), "the FIFO dropped it, accesses notwithstanding");
        assertEquals(16 * K, cache.bytes());
    }

    @Test
    void aBlockAskedForAgainAfterLeavingIsKeptThroughAScan() {
        cache.put(bp(0), new byte[K]);
        for (int i = 1; i <= 16; i++) cache.put(bp(i), new byte[K]);
        assertNull(cache.get(bp(0)));
        byte[] again = new byte[K];
        cache.put(bp(0), again); // read from the device again: its ghost sends it to the reused list
        for (int i = 100; i < 1100; i++) cache.put(bp(i), new byte[K]); // a scan of 1,000 blocks
        assertSame(again, cache.get(bp(0)), "a scan cannot push out a block used twice");
        assertTrue(cache.contains(bp(0)));
        assertEquals(17 * K, cache.bytes(), "16 fresh + 1 reused");
    }

    /**
     * With the default sizes a scan leaves at most 8 MiB of its blocks behind (session 14: the young collections
     * copy what the FIFO holds; 64 MiB of it made a 2 GiB sequential read cost 1.3x the CPU), whatever the capacity.
     */
    @Test
    void aScanThroughTheDefaultCacheLeavesEightMebibytes() {
        BlockCache big = new BlockCache(1L << 30);
        int block = 128 * K;
        for (int i = 0; i < 1024; i++) { // 128 MiB read once, 128 KiB records
            byte[] sum = new byte[Checksum.SIZE];
            sum[0] = (byte) i;
            sum[1] = (byte) (i >> 8);
            big.put(new BlockPointer(new Dva[] {new Dva(0, (long) i * block, block), Dva.EMPTY, Dva.EMPTY}, block,
                    block, BlockType.FILE_DATA, Compression.OFF, Checksum.CRC32C, 0, 7, 1, sum), new byte[block]);
        }
        assertEquals(8L << 20, big.bytes());
    }

    private int filler = 10_000;

    /** Reads block {@code n}, lets 16 newer blocks push it out, and reads it again: it is then reused. */
    private void reuse(int n) {
        cache.put(bp(n), new byte[K]);
        for (int i = 0; i < 16; i++) cache.put(bp(filler++), new byte[K]);
        assertNull(cache.get(bp(n)));
        cache.put(bp(n), new byte[K]);
    }

    @Test
    void theReusedListIsBoundedByTheCapacityInLruOrder() {
        for (int i = 0; i < 48; i++) reuse(i);
        assertEquals(64 * K, cache.bytes(), "16 KiB fresh + 48 KiB reused: full");
        assertNotNull(cache.get(bp(0))); // touched: now the youngest of the reused list
        reuse(48);
        assertEquals(64 * K, cache.bytes(), "never over");
        assertNotNull(cache.get(bp(0)));
        assertNull(cache.get(bp(1)), "the least recently used made room");
        assertNotNull(cache.get(bp(48)));
    }

    /** {@link #bp(int)} with another birth: the same record written again elsewhere in a later txg. */
    private static BlockPointer rewrite(int n, int at) {
        BlockPointer b = bp(n);
        return new BlockPointer(new Dva[] {new Dva(0, (long) at * 512, 1024), Dva.EMPTY, Dva.EMPTY}, K, K,
                BlockType.FILE_DATA, Compression.OFF, Checksum.CRC32C, 0, 8, 1, b.checksum());
    }

    @Test
    void aRewrittenRecordTakesItsOldVersionsPlaceOnlyIfThatWasCached() {
        byte[] written = new byte[K];
        cache.carry(bp(1), rewrite(1, 900), written, K);
        assertNull(cache.get(rewrite(1, 900)), "a record never read is not cached by writing it");
        assertEquals(0, cache.bytes());

        cache.put(bp(2), new byte[K]);
        cache.carry(bp(2), rewrite(2, 902), written, K);
        assertNull(cache.get(bp(2)), "the old version leaves");
        assertSame(written, cache.get(rewrite(2, 902)), "the new one is served without a read");
        assertEquals(K, cache.bytes());

        reuse(3); // on the reused list: its new version is too, and a scan does not push it out
        byte[] longer = new byte[2 * K];
        longer[K - 1] = 7;
        cache.carry(bp(3), rewrite(3, 903), longer, K);
        for (int i = 100; i < 1100; i++) cache.put(bp(i), new byte[K]);
        byte[] got = cache.get(rewrite(3, 903));
        assertNotNull(got);
        assertEquals(K, got.length, "cut to the block's logical size");
        assertEquals(7, got[K - 1]);
    }

    @Test
    void clearForgetsTheGhostsToo() {
        cache.put(bp(0), new byte[K]);
        for (int i = 1; i <= 16; i++) cache.put(bp(i), new byte[K]); // bp(0) leaves: a ghost
        cache.clear();
        assertEquals(0, cache.bytes());
        cache.put(bp(0), new byte[K]); // no ghost: fresh again, not reused
        for (int i = 1; i <= 16; i++) cache.put(bp(i + 500), new byte[K]);
        assertNull(cache.get(bp(0)));
    }
}
