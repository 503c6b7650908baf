package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One directory of many entries (issue point 8: a million): created through a mount, listed by readdir,
 * random names looked up, then the same after export and import. {@code ./ringfuse test} runs 20,000
 * entries; {@code pool/crash-soak.sh} runs the million (-Dpool.bigdir.entries=1000000).
 */
@Timeout(value = 4, unit = java.util.concurrent.TimeUnit.HOURS)
class BigDirectoryTest {
    static final int ENTRIES = Integer.getInteger("pool.bigdir.entries", 20_000);

    @TempDir
    Path tmp;

    @Test
    void manyEntriesListLookUpAndSurviveExportImport() throws Exception {
        Path img = tmp.resolve("big.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(Math.max(256L << 20, ENTRIES * 2048L));
        }
        Path mp = MountedFsKit.newMountpoint("poolbig");
        Pool pool = Pool.create("big", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("big/d", Map.of("compression", "lz4"));
        long t0 = System.nanoTime();
        PoolFsMountTest.mounted(pool, "big/d", mp, () -> {
            Path dir = Files.createDirectory(mp.resolve("dir"));
            for (int i = 0; i < ENTRIES; i++) Files.createFile(dir.resolve(name(i)));
            return null;
        }, timeoutFor(ENTRIES));
        long t1 = System.nanoTime();
        PoolFsMountTest.mounted(pool, "big/d", mp, () -> {
            checkListAndLookups(mp.resolve("dir"), 1);
            return null;
        }, timeoutFor(ENTRIES));
        long t2 = System.nanoTime();
        pool.export(false);

        Pool again = Pool.open(List.<BlockDevice>of(UringBlockDevice.open(img)));
        PoolFsMountTest.mounted(again, "big/d", mp, () -> {
            checkListAndLookups(mp.resolve("dir"), 2);
            Files.delete(mp.resolve("dir").resolve(name(ENTRIES / 2)));
            assertTrue(Files.notExists(mp.resolve("dir").resolve(name(ENTRIES / 2))));
            return null;
        }, timeoutFor(ENTRIES));
        long t3 = System.nanoTime();
        PoolVerifier.Report r = PoolVerifier.verify(again, null);
        assertTrue(r.clean(), r.errors().toString());
        again.export(false);
        System.out.printf("%d entries: create %.1f s (%.0f/s), list+lookups %.1f s, after import %.1f s%n", ENTRIES,
                (t1 - t0) / 1e9, ENTRIES / ((t1 - t0) / 1e9), (t2 - t1) / 1e9, (t3 - t2) / 1e9);
    }

    private static java.time.Duration timeoutFor(int entries) {
        return java.time.Duration.ofSeconds(120 + entries / 200);
    }

    static String name(int i) {
        return "entry-" + Integer.toString(i, 36) + "-" + (i * 2654435761L & 0xffff);
    }

    private static void checkListAndLookups(Path dir, long seed) throws Exception {
        long n;
        java.util.BitSet seen = new java.util.BitSet(ENTRIES);
        try (Stream<Path> s = Files.list(dir)) {
            n = s.peek(p -> {
                String f = p.getFileName().toString();
                int i = Integer.parseInt(f.substring(6, f.indexOf('-', 6)), 36);
                assertEquals(name(i), f);
                seen.set(i);
            }).count();
        }
        assertEquals(ENTRIES, n, "readdir returned " + n + " entries");
        assertEquals(ENTRIES, seen.cardinality(), "readdir returned duplicates");
        Random rnd = new Random(seed);
        for (int k = 0; k < 2000; k++) {
            int i = rnd.nextInt(ENTRIES);
            assertTrue(Files.isRegularFile(dir.resolve(name(i))), name(i));
            assertTrue(Files.notExists(dir.resolve(name(i) + "x")));
        }
    }
}
