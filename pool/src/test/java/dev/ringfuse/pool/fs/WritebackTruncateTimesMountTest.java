package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.testkit.MountedFsKit;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Stat;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Under the writeback cache the kernel owns a regular file's mtime and ctime (DESIGN.md, "Writeback cache"):
 * what the pool stores for them after a truncation must be what the kernel showed, which a remount (the
 * kernel forgets its copy) then reads back. truncate(2) to the current size sends SETATTR with the size alone
 * and the kernel keeps its times; the pool used to stamp new ones, which showed only after a remount.
 */
@Timeout(120)
class WritebackTruncateTimesMountTest {
    private static final long OLD = 1000L * 1_000_000_000L;

    @Test
    void truncationTimesAreTheKernelsAcrossARemount() throws Exception {
        Pool pool = Pool.create("wt", List.<BlockDevice>of(new MemoryDevice("m", 64L << 20)));
        pool.createDataset("wt/d", Map.of());
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-wb-truncate");
        Map<String, Stat> seen = new LinkedHashMap<>();
        PoolFsMountTest.mounted(new PoolFs(pool.dataset("wt/d"), false, 5, true), mp, () -> {
            for (String f : List.of("same", "fsame", "shrink")) {
                Files.writeString(mp.resolve(f), "abc");
                Libc.utimensat(mp.resolve(f).toString(), 1000, 0, 1000, 0, 0);
            }
            Thread.sleep(20); // a time stamped by the truncation differs from the utimensat's ctime
            Libc.truncate(mp.resolve("same").toString(), 3);
            try (RandomAccessFile r = new RandomAccessFile(mp.resolve("fsame").toFile(), "rw")) {
                r.setLength(3); // ftruncate(2): marks the times for update even at the same size
            }
            Libc.truncate(mp.resolve("shrink").toString(), 1);
            for (String f : List.of("same", "fsame", "shrink")) seen.put(f, Libc.stat(mp.resolve(f).toString()));
            assertEquals(OLD, seen.get("same").mtimeNs(), "the kernel keeps its times at the same size");
            assertNotEquals(OLD, seen.get("fsame").mtimeNs(), "ftruncate stamps the times");
            assertNotEquals(OLD, seen.get("shrink").mtimeNs(), "a truncation that changes the size stamps the times");
            return null;
        }, Duration.ofSeconds(60));
        // a fresh mount (no cache): the kernel now shows what the pool stored
        PoolFsMountTest.mounted(new PoolFs(pool.dataset("wt/d"), false, 5, false), mp, () -> {
            for (Map.Entry<String, Stat> e : seen.entrySet()) {
                Stat now = Libc.stat(mp.resolve(e.getKey()).toString());
                assertEquals(e.getValue().mtimeNs(), now.mtimeNs(), e.getKey() + ": mtime after the remount");
                assertEquals(e.getValue().ctimeNs(), now.ctimeNs(), e.getKey() + ": ctime after the remount");
                assertTrue(now.size() == (e.getKey().equals("shrink") ? 1 : 3), e.getKey() + ": size");
            }
            return null;
        }, Duration.ofSeconds(60));
        pool.close();
    }
}
