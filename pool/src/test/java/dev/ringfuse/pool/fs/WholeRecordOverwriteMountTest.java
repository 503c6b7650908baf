package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.GatedDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.testkit.MountedFsKit;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A write that covers whole records of a committed file does not read those records first (session 15: each
 * 128 KiB record a 1 MiB overwrite covered was read from the device, synchronously, under the pool lock); a
 * write that covers part of a record still reads it, and both keep every other byte.
 */
@Timeout(120)
class WholeRecordOverwriteMountTest {
    static final int MIB = 1 << 20, RECORD = 128 << 10;

    @Test
    void wholeRecordsAreOverwrittenWithoutReadingThem() throws Exception {
        GatedDevice dev = new GatedDevice("g", 256L << 20);
        Pool pool = Pool.create("wo", List.<BlockDevice>of(dev));
        pool.createDataset("wo/d", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        Random rnd = new Random(15);
        byte[] model = new byte[4 * MIB];
        rnd.nextBytes(model);
        Path mp = MountedFsKit.newMountpoint("pool-overwrite");
        Path f = mp.resolve("f");
        PoolFsMountTest.mounted(pool, "wo/d", mp, () -> {
            Files.write(f, model);
            pool.commit();
            pool.io().cache().clear(); // the records are on the device only
            byte[] whole = new byte[MIB];
            rnd.nextBytes(whole);
            long before = dev.reads.get();
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(whole), MIB); // records 8 to 15, every byte of each
            }
            assertEquals(0, dev.reads.get() - before, "device reads for a 1 MiB overwrite of eight whole records");
            System.arraycopy(whole, 0, model, MIB, MIB);

            byte[] part = new byte[4096];
            rnd.nextBytes(part);
            before = dev.reads.get();
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(part), 3L * MIB + 100); // part of record 24
            }
            assertTrue(dev.reads.get() - before >= 1, "a partial overwrite reads the record it changes");
            System.arraycopy(part, 0, model, 3 * MIB + 100, part.length);
            pool.commit();
            pool.io().cache().clear();
            return null;
        });
        // a new mount: no page of the file is cached by the kernel, every byte comes from the pool's device
        PoolFsMountTest.mounted(pool, "wo/d", mp, () -> {
            byte[] got = Files.readAllBytes(f);
            assertEquals(model.length, got.length);
            for (int r = 0; r < model.length / RECORD; r++) {
                int at = r * RECORD;
                assertArrayEquals(java.util.Arrays.copyOfRange(model, at, at + RECORD),
                        java.util.Arrays.copyOfRange(got, at, at + RECORD), "record " + r);
            }
            return null;
        });
        pool.close();
    }
}
