package dev.ringfuse.pool.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch of writes on an image through io_uring: adjacent writes go out merged (up to a registered buffer),
 * in any order given, beside scattered ones and one larger than a buffer; every byte lands where it belongs
 * and no registered buffer is left leased.
 */
@Timeout(60)
class UringBlockDeviceBatchTest {
    @TempDir
    Path tmp;

    @Test
    void adjacentWritesMergedAndScatteredOnesLandWhereTheyBelong() throws Exception {
        Path img = tmp.resolve("batch.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(64L << 20);
        }
        Random rnd = new Random(42);
        List<BlockDevice.Write> writes = new ArrayList<>();
        for (int i = 0; i < 20; i++) writes.add(write(rnd, (4L << 20) + i * (128L << 10), 128 << 10)); // a run of 2.5 MiB
        for (int i = 0; i < 6; i++) writes.add(write(rnd, (16L << 20) + i * (64L << 10), 4096)); // gaps between
        writes.add(write(rnd, 20L << 20, 3 << 20)); // larger than a registered buffer
        writes.add(write(rnd, (23L << 20), 8192)); // right after it
        List<BlockDevice.Write> shuffled = new ArrayList<>(writes);
        Collections.shuffle(shuffled, rnd);
        try (UringBlockDevice d = UringBlockDevice.open(img)) {
            d.writeAll(shuffled);
            d.flush();
            for (BlockDevice.Write w : writes) {
                byte[] back = new byte[w.data().length];
                d.read(w.offset(), back, 0, back.length);
                assertArrayEquals(w.data(), back, "bytes at " + w.offset());
            }
            assertEquals(0, d.fixedInUse(), "registered buffers leased after the batch");
        }
    }

    /**
     * A read whose check executor refuses it (`pool verify`'s window closed its checkers after giving up on a slow
     * read) still gives its registered buffer back: the future fails, the buffer is not leased forever.
     */
    @Test
    void readIntoARefusingExecutorGivesItsBufferBack() throws Exception {
        Path img = tmp.resolve("refuse.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(4L << 20);
        }
        java.util.concurrent.ExecutorService shut = java.util.concurrent.Executors.newSingleThreadExecutor();
        shut.shutdown();
        try (UringBlockDevice d = UringBlockDevice.open(img)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(d.registered(), "no registered buffers here");
            var read = d.readAsync(0, 4096, shut, seg -> seg.byteSize());
            org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> read.get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, d.fixedInUse(), "registered buffers leased after a refused read");
            assertEquals(7L, d.readAsync(0, 4096, Runnable::run, seg -> 7L).get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, d.fixedInUse(), "registered buffers leased after a read");
        }
    }

    private static BlockDevice.Write write(Random rnd, long offset, int len) {
        byte[] b = new byte[len];
        rnd.nextBytes(b);
        return new BlockDevice.Write(offset, b);
    }
}
