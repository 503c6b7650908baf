package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.GatedDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
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
 * A record that was read and is rewritten stays cached across its commit (BlockCache#carry): 4 KiB random
 * overwrites each followed by fsync, as a database's page writes, read each record from the device once, not
 * once per commit; and what the cache then serves is the bytes written, through the mount with the kernel's page
 * cache dropped, after export and import, and by a full verification.
 */
@Timeout(300)
class RewriteCacheMountTest {
    static final int RECORD = 128 << 10;
    static final int RECORDS = 32;

    @Test
    void overwritesWithFsyncReadEachRecordOnceAndReadBackExact() throws Exception {
        GatedDevice dev = new GatedDevice("g", 256L << 20);
        Pool pool = Pool.create("rc", List.<BlockDevice>of(dev));
        pool.createDataset("rc/d", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        byte[] model = new byte[RECORD * RECORDS];
        Random rnd = new Random(21);
        rnd.nextBytes(model);
        Path mp = MountedFsKit.newMountpoint("pool-rewritecache");
        Path f = mp.resolve("db");
        PoolFsMountTest.mounted(pool, "rc/d", mp, () -> {
            Files.write(f, model);
            try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
                c.force(true);
                long before = dev.reads.get();
                overwrite(c, model, rnd, 1); // the first touch of each record reads it (a 4 KiB write into 128 KiB)
                long firstRound = dev.reads.get() - before;
                assertTrue(firstRound >= RECORDS, "each record read once at least: " + firstRound);
                before = dev.reads.get();
                overwrite(c, model, rnd, 4);
                assertEquals(0, dev.reads.get() - before, "records rewritten and fsynced stay cached across commits");
            }
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1"); // the next read asks the server
            assertArrayEquals(model, Files.readAllBytes(f), "what the cache serves is what was written");
            return null;
        });
        pool.close();

        Pool again = Pool.open(List.<BlockDevice>of(dev));
        PoolVerifier.Report rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        PoolFsMountTest.mounted(again, "rc/d", mp, () -> {
            assertArrayEquals(model, Files.readAllBytes(f), "after export and import");
            return null;
        });
        again.close();
    }

    /** {@code rounds} times: a 4 KiB write at a random place in every record, each followed by fsync. */
    private static void overwrite(FileChannel c, byte[] model, Random rnd, int rounds) throws Exception {
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < RECORDS; i++) {
                int off = i * RECORD + rnd.nextInt(RECORD / 4096) * 4096;
                byte[] page = new byte[4096];
                rnd.nextBytes(page);
                System.arraycopy(page, 0, model, off, page.length);
                assertEquals(page.length, c.write(ByteBuffer.wrap(page), off));
                c.force(false);
            }
        }
    }
}
