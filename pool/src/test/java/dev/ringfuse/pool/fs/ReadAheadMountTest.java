package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.testkit.MountedFsKit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sequential reader's read-ahead starts at twice its read and doubles with each sequential read up to its share of
 * the budget (8 MiB by default), whatever the record size (session 14: with 16 KiB records it reached 256 KiB, 16 blocks, and a sequential read ran at 110–138 MiB/s), the pool never holds more
 * read-ahead than its budget however many readers stream, records stored one after another are read ahead by one
 * device read per 1 MiB (session 15), and what read-ahead serves (counted) is the bytes written.
 * O_DIRECT reads by dd (one 1 MiB read(2) each, so one READ of its own offset and size; the JDK's O_DIRECT option is in
 * a module the pool does not read).
 */
@Timeout(300)
class ReadAheadMountTest {
    static final int MIB = 1 << 20;

    @Test
    void readAheadGrowsToItsShareWithSmallRecordsAndKeepsItsBudget() throws Exception {
        // each dd below must be one READ of 1 MiB: the kernel's default max_pages_limit (256 pages) allows it
        // (readAllLines: Files.readString trusts the size procfs reports and returned "2" of "256")
        Path limit = Path.of("/proc/sys/fs/fuse/max_pages_limit");
        Assumptions.assumeTrue(!Files.exists(limit) || Integer.parseInt(Files.readAllLines(limit).get(0).trim()) >= 256,
                "fs.fuse.max_pages_limit below 256 splits a 1 MiB read");
        Pool pool = Pool.create("ra", List.<BlockDevice>of(new MemoryDevice("m", 512L << 20)));
        pool.createDataset("ra/d", Map.of("compression", "off", "recordsize", "16K"));
        pool.commit();
        // a stream reads FileData.streamAhead() ahead (8 MiB by default): files long enough to see it whole twice
        int ahead = (int) FileData.streamAhead();
        Assumptions.assumeTrue(ahead == 8 * MIB, "a heap under 1 GiB keeps a smaller read-ahead: " + ahead);
        int files = 6, size = ahead + 4 * MIB;
        byte[][] model = new byte[files][size];
        Random rnd = new Random(14);
        for (byte[] m : model) rnd.nextBytes(m);
        Path mp = MountedFsKit.newMountpoint("pool-readahead");
        PoolFsMountTest.mounted(pool, "ra/d", mp, () -> {
            for (int i = 0; i < files; i++) Files.write(mp.resolve("f" + i), model[i]);
            pool.commit();
            pool.io().cache().clear(); // every block from the device from here on
            Path[] f = new Path[files];
            for (int i = 0; i < files; i++) f[i] = mp.resolve("f" + i);
            readAt(f[0], 0, model[0]);
            assertEquals(0, pool.io().aheadBytes(), "one read is no stream yet");
            readAt(f[0], MIB, model[0]);
            assertEquals(2 * MIB, pool.io().aheadBytes(), "twice the read (128 records of 16 KiB) past the second read");
            long hits = pool.io().aheadHits(), reads = pool.io().aheadReads();
            readAt(f[0], 2 * MIB, model[0]);
            assertEquals(4 * MIB, pool.io().aheadBytes(), "the window doubled with the third read");
            readAt(f[0], 3 * MIB, model[0]);
            assertEquals(ahead, pool.io().aheadBytes(), "and again with the fourth, up to the stream's share");
            for (int pos = 4 * MIB; pos < size; pos += MIB) readAt(f[0], pos, model[0]);
            assertEquals((size - 2 * MIB) / (16 << 10), pool.io().aheadHits() - hits, "every record past the second read came from read-ahead");
            assertEquals(0, pool.io().aheadBytes(), "nothing read ahead past the end of the file");
            // the file's records lie one after another: read ahead by device reads of 1 MiB (64 records), not one each
            long merged = pool.io().aheadReads() - reads;
            assertTrue(merged >= 1 && merged <= (size - 2 * MIB) / BlockIo.MERGE_BYTES,
                    merged + " device reads for " + (size - 2 * MIB) + " bytes of 16 KiB records");
            // five more streams want five times a stream's share ahead: the pool holds at most its budget (what finished
            // unclaimed makes room), and every stream still reads its own bytes
            for (int pos = 0; pos < size; pos += MIB) {
                for (int i = 1; i < files; i++) {
                    readAt(f[i], pos, model[i]);
                    assertTrue(pool.io().aheadBytes() <= BlockIo.MAX_AHEAD_BYTES, "held " + pool.io().aheadBytes());
                }
            }
            return null;
        });
        pool.close();
    }

    /** Reads 1 MiB at {@code pos} with O_DIRECT (dd) and checks it against the model. */
    private static void readAt(Path f, int pos, byte[] model) throws Exception {
        Process p = new ProcessBuilder("dd", "if=" + f, "iflag=direct", "bs=1M", "skip=" + pos / MIB, "count=1",
                "status=none").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] got = p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), "dd at " + pos);
        assertArrayEquals(Arrays.copyOfRange(model, pos, pos + MIB), got, "bytes at " + pos);
    }
}
