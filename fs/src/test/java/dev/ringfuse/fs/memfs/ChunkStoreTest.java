package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkStoreTest {
    private static final int CHUNK = 16 * 1024;

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(ChunkStore s, long off, int len) {
        byte[] out = new byte[len];
        Arrays.fill(out, (byte) 0x55); // holes must overwrite this with zeros
        int n = s.read(off, MemorySegment.ofArray(out), len);
        return Arrays.copyOf(out, n);
    }

    private static void write(ChunkStore s, long off, byte[] b) {
        assertEquals(b.length, s.write(off, MemorySegment.ofArray(b)));
    }

    @Test
    void writesAndReadsExactBytesAcrossChunkBoundaries() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        byte[] b = bytes(3 * CHUNK + 123, 1);
        write(s, 1000, b);
        assertEquals(1000 + b.length, s.size());
        assertArrayEquals(b, read(s, 1000, b.length));
        assertArrayEquals(new byte[1000], read(s, 0, 1000));
        assertEquals(0, read(s, s.size(), 10).length);
        assertEquals(5, read(s, s.size() - 5, 10).length);
    }

    @Test
    void smallFilesCostPagesAndAppendsGrowOnlyTheLastChunk() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        write(s, 0, bytes(10, 2));
        assertEquals(ChunkStore.PAGE, s.allocatedBytes());
        for (int i = 0; i < 20; i++) write(s, s.size(), bytes(1000, i));
        assertEquals(20010, s.size());
        assertEquals(CHUNK + ChunkStore.PAGE, s.allocatedBytes());
        assertEquals(List.of(0L, 1L), s.chunkIndexes());
    }

    @Test
    void sparseFileOfFourGibCostsOnePage() {
        ChunkStore s = new ChunkStore(64 * 1024, ChunkStore.Space.UNLIMITED);
        write(s, (4L << 30) - 1, new byte[] {7});
        assertEquals(4L << 30, s.size());
        assertEquals(ChunkStore.PAGE, s.allocatedBytes());
        assertEquals(List.of((4L << 30) / (64 * 1024) - 1), s.chunkIndexes());
        assertEquals((4L << 30) - ChunkStore.PAGE, s.seekData(0));
        assertEquals(0, s.seekHole(0));
        assertArrayEquals(new byte[4096], read(s, 1L << 31, 4096));
        assertArrayEquals(new byte[] {0, 7}, read(s, (4L << 30) - 2, 2));
    }

    @Test
    void scatteredWritesCostPagesAndHolesArePageGranular() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        int p = ChunkStore.PAGE;
        write(s, CHUNK + 2 * p + 5, bytes(10, 8));
        assertEquals(p, s.allocatedBytes());
        assertEquals(CHUNK + 2 * p, s.seekData(0));
        assertEquals(s.size(), s.seekHole(CHUNK + 2 * p)); // EOF is the first hole
        s.truncate(2 * CHUNK);
        assertEquals(CHUNK + 3 * p, s.seekHole(CHUNK + 2 * p));
        write(s, CHUNK, new byte[] {1});
        assertEquals(3 * p, s.allocatedBytes()); // one span per chunk: the gap between is filled
        assertEquals(CHUNK, s.seekData(0));
        s.punchHole(CHUNK, 2 * p);
        assertEquals(p, s.allocatedBytes());
        assertEquals(CHUNK + 2 * p, s.seekData(0));
        assertArrayEquals(new byte[5], read(s, CHUNK + 2 * p, 5));
    }

    @Test
    void seekDataAndHole() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        write(s, 3 * CHUNK + 10, bytes(100, 3)); // chunk 3, first page
        s.truncate(10 * CHUNK);
        assertEquals(3 * CHUNK, s.seekData(0));
        assertEquals(3 * CHUNK + 50, s.seekData(3 * CHUNK + 50));
        assertEquals(-1, s.seekData(3 * CHUNK + ChunkStore.PAGE));
        assertEquals(0, s.seekHole(0));
        assertEquals(3 * CHUNK + ChunkStore.PAGE, s.seekHole(3 * CHUNK));
        assertEquals(-1, s.seekHole(10 * CHUNK));
        assertEquals(-1, s.seekData(-1));
    }

    @Test
    void seekHoleOfDenseFileIsEof() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        write(s, 0, bytes(2 * CHUNK + 5, 4));
        assertEquals(s.size(), s.seekHole(0));
        assertEquals(0, s.seekData(0));
    }

    @Test
    void punchHoleZeroesPartsAndDropsWholeChunks() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        byte[] b = bytes(4 * CHUNK, 5);
        write(s, 0, b);
        s.punchHole(100, 2 * CHUNK); // zero 100..; chunk 1 gone entirely; chunk 2 zeroed up to 100
        byte[] expect = b.clone();
        Arrays.fill(expect, 100, 100 + 2 * CHUNK, (byte) 0);
        assertArrayEquals(expect, read(s, 0, 4 * CHUNK));
        assertEquals(4 * CHUNK, s.size());
        assertEquals(List.of(0L, 2L, 3L), s.chunkIndexes());
        assertEquals(ChunkStore.PAGE, s.seekHole(0)); // the tail of chunk 0 went back
        assertEquals(2 * CHUNK, s.seekData(ChunkStore.PAGE));
        s.punchHole(3 * CHUNK, CHUNK);
        assertEquals(List.of(0L, 2L), s.chunkIndexes());
        assertEquals(-1, s.seekData(3 * CHUNK));
    }

    @Test
    void truncateDownZeroesTheTailSoGrowingAgainReadsZeros() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        byte[] b = bytes(3 * CHUNK, 6);
        write(s, 0, b);
        s.truncate(CHUNK + 10);
        assertEquals(CHUNK + ChunkStore.PAGE, s.allocatedBytes());
        s.truncate(3 * CHUNK);
        byte[] expect = new byte[3 * CHUNK];
        System.arraycopy(b, 0, expect, 0, CHUNK + 10);
        assertArrayEquals(expect, read(s, 0, 3 * CHUNK));
        s.truncate(0);
        assertEquals(0, s.allocatedBytes());
        assertEquals(0, s.size());
    }

    @Test
    void allocateReservesEverythingFirst() {
        Limits limits = new Limits(8 * ChunkStore.PAGE, 10);
        ChunkStore s = new ChunkStore(CHUNK, limits);
        write(s, 0, bytes(100, 7));
        FuseException e = assertThrows(FuseException.class, () -> s.allocate(0, 10 * ChunkStore.PAGE, false));
        assertEquals(Errno.ENOSPC, e.errno());
        assertEquals(100, s.size());
        assertEquals(ChunkStore.PAGE, limits.usedBytes());
        s.allocate(0, 8 * ChunkStore.PAGE, true);
        assertEquals(100, s.size());
        assertEquals(8 * ChunkStore.PAGE, limits.usedBytes());
        assertEquals(100, s.seekHole(0));
        s.clear();
        assertEquals(0, limits.usedBytes());
    }

    @Test
    void writeStopsShortWhenFull() {
        Limits limits = new Limits(CHUNK, 10);
        ChunkStore s = new ChunkStore(CHUNK, limits);
        assertEquals(CHUNK, s.write(0, MemorySegment.ofArray(new byte[2 * CHUNK])));
        FuseException e = assertThrows(FuseException.class, () -> s.write(CHUNK, MemorySegment.ofArray(new byte[1])));
        assertEquals(Errno.ENOSPC, e.errno());
    }

    @Test
    void offsetsNearTheLimitAreEfbig() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        assertThrows(FuseException.class, () -> s.write(Long.MAX_VALUE, MemorySegment.ofArray(new byte[2])));
        write(s, Long.MAX_VALUE - 1, new byte[] {1});
        assertEquals(Long.MAX_VALUE, s.size());
    }

    /** Random operations against a plain array model. */
    @Test
    void matchesAModelUnderRandomOperations() {
        Random r = new Random(42);
        int max = 6 * CHUNK;
        Limits limits = new Limits(Long.MAX_VALUE, 1);
        ChunkStore s = new ChunkStore(CHUNK, limits);
        byte[] model = new byte[max];
        int size = 0;
        for (int step = 0; step < 5000; step++) {
            int off = r.nextInt(max), len = 1 + r.nextInt(Math.min(r.nextBoolean() ? 2 * ChunkStore.PAGE : 2 * CHUNK, max - off));
            switch (r.nextInt(5)) {
                case 0, 1 -> {
                    byte[] b = bytes(len, step);
                    write(s, off, b);
                    System.arraycopy(b, 0, model, off, len);
                    size = Math.max(size, off + len);
                }
                case 2 -> {
                    s.truncate(off);
                    if (off < size) Arrays.fill(model, off, size, (byte) 0);
                    size = off;
                }
                case 3 -> {
                    s.punchHole(off, len);
                    Arrays.fill(model, off, off + len, (byte) 0);
                }
                default -> {
                    s.zeroRange(off, len, r.nextBoolean());
                    Arrays.fill(model, off, off + len, (byte) 0);
                    if (s.size() > size) size = (int) s.size();
                }
            }
            assertEquals(size, s.size(), "size at step " + step);
            int ro = r.nextInt(max);
            assertArrayEquals(Arrays.copyOfRange(model, Math.min(ro, size), Math.min(size, ro + 3 * CHUNK)),
                    read(s, ro, 3 * CHUNK), "read at step " + step);
            long d = s.seekData(ro);
            for (int i = ro; i < (d < 0 ? size : d); i++) assertEquals(0, model[i], "data before SEEK_DATA");
            long h = s.seekHole(ro);
            assertTrue(h == -1 ? ro >= size : h >= ro && h <= size);
            assertTrue(s.allocatedBytes() % ChunkStore.PAGE == 0);
            assertEquals(limits.usedBytes(), s.allocatedBytes(), "accounting at step " + step);
            if (h >= 0 && h < size) assertTrue(s.seekData(h) != h, "SEEK_HOLE result is a hole");
        }
    }
}
