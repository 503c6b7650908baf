package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.Pool;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Records prepared ahead of the commit (RecordPrep) go with their dirty buffers: a truncate, a punched record or
 * a deleted file drops the preparation at once. Before, it stayed until the next commit, holding the buffer and
 * its compressed copy while the dirty figure no longer counted them: writing and deleting files without a commit
 * (no timed commits, or within the 5 s) grew the heap without bound.
 */
@Timeout(60)
class RecordPrepDropTest {
    static final int REC = 128 << 10;

    @Test
    void droppedRecordsDropTheirPreparations() throws Exception {
        Pool pool = Pool.create("rp", List.<BlockDevice>of(new MemoryDevice("m", 64L << 20)));
        pool.createDataset("rp/d", Map.of("compression", "lz4", "recordsize", "128K"));
        pool.commit();
        PoolFs fs = new PoolFs(pool.dataset("rp/d"), false, 0);
        byte[] bytes = new byte[8 * REC];
        new Random(3).nextBytes(bytes);
        MemorySegment src = MemorySegment.ofArray(bytes);
        long txg = pool.txg();
        fs.locked(() -> {
            Inode n = fs.inodes.allocate(Attr.S_IFREG | 0644, 0, 0);
            fs.inodes.put(n);
            fs.data.write(n, 0, src, bytes.length);
            assertEquals(8, fs.data.preparing(), "every filled record is being prepared");
            fs.data.punch(n, 2L * REC, 2L * REC); // two whole records become holes
            assertEquals(6, fs.data.preparing(), "punched records");
            fs.data.truncate(n, REC);
            assertEquals(1, fs.data.preparing(), "truncated records");
            fs.data.write(n, 0, src, bytes.length);
            fs.data.freeAll(n);
            assertEquals(0, fs.data.preparing(), "a deleted file's records");
            assertEquals(0, fs.data.dirtyBytes());
        });
        assertEquals(txg, pool.txg(), "no commit in between");
        fs.close();
        pool.close();
    }

    /** The workers end once idle: none outlives the pools that used it by much more than RecordPrep.IDLE_SECONDS. */
    @Test
    void idleWorkersEnd() throws Exception {
        Pool pool = Pool.create("rw", List.<BlockDevice>of(new MemoryDevice("m", 64L << 20)));
        pool.createDataset("rw/d", Map.of("compression", "lz4", "recordsize", "128K"));
        PoolFs fs = new PoolFs(pool.dataset("rw/d"), false, 0);
        byte[] bytes = new byte[4 * REC];
        new Random(4).nextBytes(bytes);
        fs.locked(() -> {
            Inode n = fs.inodes.allocate(Attr.S_IFREG | 0644, 0, 0);
            fs.inodes.put(n);
            fs.data.write(n, 0, MemorySegment.ofArray(bytes), bytes.length);
        });
        fs.close(); // commits: the records' preparations ran on the workers
        pool.close();
        long deadline = System.nanoTime() + (RecordPrep.IDLE_SECONDS + 20) * 1_000_000_000L;
        while (workers() > 0 && System.nanoTime() < deadline) Thread.sleep(200);
        assertEquals(0, workers(), "pool-prepare threads alive long after the last commit");
    }

    private static long workers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("pool-prepare")).count();
    }
}
