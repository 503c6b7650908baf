package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.StatFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A deletion's space comes back on an idle pool (DESIGN.md, "Deferred frees"): its blocks stay allocated until
 * the txg after the deleting one has committed, and an idle pool used never to commit that one, so df showed
 * the space gone (and its size shrunk by the file) until some other change was committed.
 */
@Timeout(120)
class IdleFreeMountTest {
    private static final int COMMIT_SECONDS = 2;
    private static final long FILE = 40L << 20;

    @Test
    void deletedSpaceShowsInStatfsWithoutAnyOtherWrite() throws Exception {
        Pool pool = Pool.create("if", List.<BlockDevice>of(new MemoryDevice("m", 64L << 20)));
        pool.createDataset("if/d", Map.of("compression", "off"));
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-idle-free");
        byte[] data = SpaceMountTest.random((int) FILE, 7);
        PoolFs fs = new PoolFs(pool.dataset("if/d"), false, COMMIT_SECONDS);
        PoolFsMountTest.mounted(fs, mp, () -> {
            StatFs empty = Libc.statfs(mp.toString());
            Path big = mp.resolve("big");
            Files.write(big, data);
            SpaceMountTest.sync(mp);
            StatFs full = Libc.statfs(mp.toString());
            assertTrue((empty.bavail() - full.bavail()) * 4096 >= FILE, "the file took its space: " + empty + " then " + full);

            Files.delete(big);
            SpaceMountTest.sync(mp); // sync -f: the deleting txg is durable; nothing is written after it
            // the kernel forgets the inode (which frees the blocks) on its own time, so the deletion's txg may be
            // the next timed one; one more commit interval releases them
            long limit = System.nanoTime() + Duration.ofSeconds(3L * COMMIT_SECONDS).toNanos();
            StatFs now = Libc.statfs(mp.toString());
            while ((now.bavail() - full.bavail()) * 4096 < FILE && System.nanoTime() < limit) {
                Thread.sleep(100);
                now = Libc.statfs(mp.toString());
            }
            assertTrue((now.bavail() - full.bavail()) * 4096 >= FILE,
                    "df shows the deleted file's space within " + 3 * COMMIT_SECONDS + " s of an idle pool: " + full + " then " + now);
            assertEquals(empty.blocks(), now.blocks(), 256, "df's size is back (within 1 MiB of metadata)");
            var a = pool.io().allocator();
            assertTrue(a.deferredBytes() < 1L << 20, "the blocks left the deferred frees: " + a.deferredBytes());

            // and they are allocatable: the same file again fits where the pool had room for it only once
            Files.write(big, data);
            SpaceMountTest.sync(mp);
            assertTrue(Files.size(big) == FILE);
            return null;
        }, Duration.ofSeconds(90));
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
    }
}
