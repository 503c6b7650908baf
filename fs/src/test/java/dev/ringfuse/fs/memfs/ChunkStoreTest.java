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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChunkStoreTest {
    private static final int CHUNK = 16 * 1024;
    private static final int PAGE = ChunkStore.PAGE;
    /** A warm period no test outlasts: a slot freed warm is still there when the test reuses it. */
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    /** Chunk memory whose warm slots wait an hour. */
    private static ChunkMemory warmForAnHour(int chunk) {
        return new ChunkMemory(chunk, ChunkMemory.WARM_LIMIT, HOUR);
    }

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
        assertEquals(2 * p, s.allocatedBytes()); // pages, not spans: the gap between stays a hole
        assertEquals(CHUNK, s.seekData(0));
        assertEquals(CHUNK + p, s.seekHole(CHUNK));
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

    /**
     * Random operations against a model: the bytes, and per page whether it is allocated and whether it holds
     * data (tmpfs's rules: written pages are data, fallocated ones are allocated holes, punch and truncate free
     * whole pages only). SEEK_DATA, SEEK_HOLE and st_blocks must match the model exactly.
     */
    @Test
    void matchesAModelUnderRandomOperations() {
        Random r = new Random(42);
        int max = 6 * CHUNK, p = ChunkStore.PAGE, np = max / p;
        Limits limits = new Limits(Long.MAX_VALUE, 1);
        ChunkMemory mem = warmForAnHour(CHUNK);
        ChunkStore s = new ChunkStore(mem, limits);
        byte[] model = new byte[max];
        boolean[] present = new boolean[np], data = new boolean[np];
        int size = 0;
        for (int step = 0; step < 6000; step++) {
            int off = r.nextInt(max), len = 1 + r.nextInt(Math.min(r.nextBoolean() ? 2 * p : 2 * CHUNK, max - off));
            int firstWhole = (off + p - 1) / p, endWhole = (off + len) / p;
            switch (r.nextInt(6)) {
                case 0, 1 -> {
                    byte[] b = bytes(len, step);
                    write(s, off, b);
                    System.arraycopy(b, 0, model, off, len);
                    size = Math.max(size, off + len);
                    for (int i = off / p; i <= (off + len - 1) / p; i++) present[i] = data[i] = true;
                }
                case 2 -> {
                    s.truncate(off);
                    if (off < size) {
                        Arrays.fill(model, off, size, (byte) 0);
                        // shrinking frees every page past the end, fallocated ones beyond the old size too
                        for (int i = (off + p - 1) / p; i < np; i++) present[i] = data[i] = false;
                    }
                    size = off;
                }
                case 3 -> {
                    s.punchHole(off, len);
                    Arrays.fill(model, off, off + len, (byte) 0);
                    for (int i = firstWhole; i < endWhole; i++) present[i] = data[i] = false;
                }
                case 4 -> {
                    boolean keep = r.nextBoolean();
                    s.allocate(off, len, keep);
                    if (!keep) size = Math.max(size, off + len);
                    for (int i = off / p; i <= (off + len - 1) / p; i++) present[i] = true;
                }
                default -> {
                    boolean keep = r.nextBoolean();
                    s.zeroRange(off, len, keep);
                    Arrays.fill(model, off, off + len, (byte) 0);
                    if (!keep) size = Math.max(size, off + len);
                    for (int i = firstWhole; i < endWhole; i++) data[i] = false;
                    for (int i = off / p; i <= (off + len - 1) / p; i++) present[i] = true;
                }
            }
            assertEquals(size, s.size(), "size at step " + step);
            int ro = r.nextInt(max);
            assertArrayEquals(Arrays.copyOfRange(model, Math.min(ro, size), Math.min(size, ro + 3 * CHUNK)),
                    read(s, ro, 3 * CHUNK), "read at step " + step);
            long wantData = -1, wantHole = -1;
            if (ro < size) {
                for (int i = ro / p; i < np && (long) i * p < size; i++) {
                    if (data[i]) { wantData = Math.max(ro, (long) i * p); break; }
                }
                wantHole = size;
                for (int i = ro / p; (long) i * p < size; i++) {
                    if (!data[i]) { wantHole = Math.min(size, Math.max(ro, (long) i * p)); break; }
                }
            }
            assertEquals(wantData, s.seekData(ro), "SEEK_DATA " + ro + " at step " + step);
            assertEquals(wantHole, s.seekHole(ro), "SEEK_HOLE " + ro + " at step " + step);
            long pages = 0;
            for (boolean b : present) if (b) pages++;
            assertEquals(pages * p, s.allocatedBytes(), "allocated pages at step " + step);
            assertEquals(limits.usedBytes(), s.allocatedBytes(), "accounting at step " + step);
            // fallocated pages are counted before they are touched, so resident may be less, never more
            assertTrue(mem.residentBytes() <= s.allocatedBytes() + mem.warmBytes(), "resident but uncounted at step "
                    + step + ": " + mem.residentBytes() + " > " + s.allocatedBytes() + " + " + mem.warmBytes());
        }
        s.clear();
        assertEquals(0, limits.usedBytes());
        mem.close();
    }

    @Test
    void fallocatedPagesAreHolesUntilWrittenAsOnTmpfs() {
        ChunkStore s = new ChunkStore(CHUNK, ChunkStore.Space.UNLIMITED);
        int p = ChunkStore.PAGE;
        s.allocate(0, 1 << 20, false);
        assertEquals(1 << 20, s.allocatedBytes());
        assertEquals(-1, s.seekData(0));
        assertEquals(0, s.seekHole(0));
        write(s, 2 * p, new byte[] {1});
        assertEquals(2 * p, s.seekData(0));
        assertEquals(3 * p, s.seekHole(2 * p));
        assertEquals(1 << 20, s.allocatedBytes());
    }

    @Test
    void punchedAndTruncatedMemoryGoesBackToTheAllocator() {
        ChunkMemory mem = new ChunkMemory(CHUNK);
        ChunkStore s = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(s, 0, bytes(8 * CHUNK, 1));
        s.punchHole(CHUNK, 4 * CHUNK);
        assertEquals(List.of(0L, 5L, 6L, 7L), s.chunkIndexes());
        s.punchHole(5 * CHUNK + ChunkStore.PAGE, ChunkStore.PAGE); // one page inside a chunk: freed, a hole
        assertEquals(4 * CHUNK - ChunkStore.PAGE, s.allocatedBytes());
        assertEquals(5 * CHUNK + ChunkStore.PAGE, s.seekHole(5 * CHUNK));
        assertEquals(5 * CHUNK + 2 * ChunkStore.PAGE, s.seekData(5 * CHUNK + ChunkStore.PAGE));
        assertArrayEquals(new byte[ChunkStore.PAGE], read(s, 5 * CHUNK + ChunkStore.PAGE, ChunkStore.PAGE));
        s.truncate(0);
        assertEquals(List.of(), s.chunkIndexes());
        assertEquals(1, mem.slabCount()); // one empty slab stays mapped for the next file
        mem.close();
        assertEquals(0, mem.slabCount());
    }

    @Test
    void aChunkFreedWholeIsReusedAndReadsAsZeros() {
        ChunkMemory mem = warmForAnHour(CHUNK);
        ChunkStore a = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(a, 0, bytes(3 * CHUNK, 7)); // every page of three chunks written
        write(a, 5 * CHUNK + 123, bytes(10, 9)); // one page of a fourth
        a.truncate(0);
        assertEquals(3 * CHUNK + PAGE, mem.warmBytes(), "written pages kept resident for reuse");
        assertEquals(3 * CHUNK + PAGE, mem.residentBytes());
        ChunkStore b = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(b, 100, new byte[] {1});
        write(b, CHUNK + 5000, new byte[] {2});
        write(b, 2 * CHUNK + CHUNK - 1, new byte[] {3});
        write(b, 3 * CHUNK + 17, new byte[] {4});
        assertEquals(0, mem.warmBytes(), "b took the four warm slots");
        assertEquals(4 * PAGE, b.allocatedBytes());
        assertEquals(4 * PAGE, mem.residentBytes(), "the pages of a reused slot that b does not count went back");
        b.truncate(4 * CHUNK); // growing shows the rest of each page, which must be zero too
        byte[] want = new byte[4 * CHUNK];
        want[100] = 1;
        want[CHUNK + 5000] = 2;
        want[3 * CHUNK - 1] = 3;
        want[3 * CHUNK + 17] = 4;
        assertArrayEquals(want, read(b, 0, 4 * CHUNK), "a reused slot shows nothing of its previous file");
        mem.close();
    }

    /** Pages 0-1, 5, 9-12, 40 and 62-63 of a 64-page chunk: several runs, the last ending at the slot's end. */
    private static final int[] SCATTERED = {0, 1, 5, 9, 10, 11, 12, 40, 62, 63};

    /** A store on {@code mem} whose one chunk was written whole in the {@link #SCATTERED} pages, then freed. */
    private static void writeScatteredAndFree(ChunkMemory mem) {
        ChunkStore a = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        for (int pg : SCATTERED) write(a, (long) pg * PAGE, bytes(PAGE, pg + 1));
        a.truncate(0);
        assertEquals(SCATTERED.length * PAGE, mem.warmBytes());
        assertEquals(SCATTERED.length * PAGE, mem.residentBytes(), "a warm slot stays resident");
    }

    @Test
    void aReusedSlotKeepsResidentOnlyThePagesItsNewOwnerCounts() {
        int chunk = ChunkStore.MAX_CHUNK;
        ChunkMemory mem = warmForAnHour(chunk);
        writeScatteredAndFree(mem);
        ChunkStore b = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        // pages 9-12, the first and last partly: zeroed for b; the other runs go back to the kernel
        byte[] mid = bytes(3 * PAGE, 11);
        write(b, 9L * PAGE + 5, mid);
        assertEquals(0, mem.warmBytes());
        assertEquals(4 * PAGE, b.allocatedBytes());
        assertEquals(4 * PAGE, mem.residentBytes(), "resident pages are the ones counted");
        // then a byte into every other page: each page of the slot is present and read back
        byte[] want = new byte[chunk];
        System.arraycopy(mid, 0, want, 9 * PAGE + 5, mid.length);
        for (int pg = 0; pg < 64; pg++) {
            if (pg >= 9 && pg <= 12) continue;
            write(b, (long) pg * PAGE + pg, new byte[] {(byte) (pg + 100)});
            want[pg * PAGE + pg] = (byte) (pg + 100);
        }
        b.truncate(chunk);
        assertArrayEquals(want, read(b, 0, chunk), "nothing of the previous file in any page");
        assertEquals(chunk, b.allocatedBytes());
        assertEquals(chunk, mem.residentBytes());
        mem.close();
    }

    @Test
    void aSlotReusedByFallocateReadsAsZerosInEveryPage() {
        int chunk = ChunkStore.MAX_CHUNK;
        ChunkMemory mem = warmForAnHour(chunk);
        writeScatteredAndFree(mem);
        ChunkStore b = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        b.allocate(0, chunk, false); // all 64 pages counted: every run of the old ones zeroed, none given back
        assertEquals(0, mem.warmBytes());
        assertEquals(chunk, b.allocatedBytes());
        assertEquals(SCATTERED.length * PAGE, mem.residentBytes(), "the untouched pages are not faulted in");
        assertArrayEquals(new byte[chunk], read(b, 0, chunk));
        mem.close();
    }

    /**
     * A chunk freed by a truncate that then failed part way has left the file: another file may be given
     * its slot, and a later write to the first file must not land in it.
     */
    @Test
    void aChunkFreedBeforeAFailureIsNoLongerTheFiles() {
        ChunkMemory mem = warmForAnHour(CHUNK);
        int[] releases = {0};
        ChunkStore.Space failsSecond = new ChunkStore.Space() {
            @Override public void reserve(long bytes) {}
            @Override public void release(long bytes) {
                if (++releases[0] == 2) throw new IllegalStateException("injected");
            }
        };
        ChunkStore a = new ChunkStore(mem, failsSecond);
        write(a, 0, bytes(2 * CHUNK, 1));
        assertThrows(IllegalStateException.class, () -> a.truncate(0));
        assertTrue(!a.chunkIndexes().contains(0L), "freed chunk still in the file: " + a.chunkIndexes());
        ChunkStore b = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        byte[] mine = bytes(PAGE, 2);
        write(b, 0, mine); // takes chunk 0's slot, warm
        write(a, 0, bytes(PAGE, 3));
        assertArrayEquals(mine, read(b, 0, PAGE), "a write to the first file reached the second's slot");
        mem.close();
    }

    @Test
    void warmMemoryGoesBackToTheKernelWithinASecond() throws InterruptedException {
        ChunkMemory mem = new ChunkMemory(CHUNK);
        ChunkStore a = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(a, 0, bytes(4 * CHUNK, 3));
        a.truncate(0);
        assertEquals(4 * CHUNK, mem.warmBytes());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (mem.warmBytes() > 0 && System.nanoTime() < deadline) Thread.sleep(50);
        assertEquals(0, mem.warmBytes(), "not reused within " + ChunkMemory.WARM_NANOS + " ns: given back");
        assertEquals(0, mem.residentBytes());
        ChunkStore b = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(b, 10, new byte[] {5});
        b.truncate(CHUNK);
        byte[] want = new byte[CHUNK];
        want[10] = 5;
        assertArrayEquals(want, read(b, 0, CHUNK));
        mem.close();
    }

    /** More warm slots than one trim gives back under the monitor: the trim goes on until all are back. */
    @Test
    void aTrimOfManySlotsGoesOnInBatchesUntilAllAreBack() throws InterruptedException {
        ChunkMemory mem = new ChunkMemory(PAGE, ChunkMemory.WARM_LIMIT, TimeUnit.MILLISECONDS.toNanos(50));
        ChunkStore a = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(a, 0, bytes(1000 * PAGE, 4));
        a.truncate(0);
        assertEquals(1000 * PAGE, mem.warmBytes());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (mem.warmBytes() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(0, mem.warmBytes());
        assertEquals(0, mem.residentBytes());
        mem.close();
    }

    @Test
    void warmMemoryStaysWithinItsLimit() {
        ChunkMemory mem = new ChunkMemory(CHUNK, 2L * CHUNK, HOUR);
        ChunkStore a = new ChunkStore(mem, ChunkStore.Space.UNLIMITED);
        write(a, 0, bytes(6 * CHUNK, 1));
        a.truncate(0);
        assertEquals(2L * CHUNK, mem.warmBytes());
        ChunkMemory punched = new ChunkMemory(CHUNK);
        ChunkStore p = new ChunkStore(punched, ChunkStore.Space.UNLIMITED);
        write(p, 0, bytes(2 * CHUNK, 1));
        p.punchHole(0, 2 * CHUNK); // asked to give the memory back: it goes now, not warm
        assertEquals(0, punched.warmBytes());
        punched.close();
        ChunkMemory none = new ChunkMemory(CHUNK, 0, HOUR);
        ChunkStore c = new ChunkStore(none, ChunkStore.Space.UNLIMITED);
        write(c, 0, bytes(2 * CHUNK, 1));
        c.truncate(0);
        assertEquals(0, none.warmBytes());
        mem.close();
        none.close();
    }
}
