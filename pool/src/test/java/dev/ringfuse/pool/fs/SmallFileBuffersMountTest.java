package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.DatasetSpace;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.SpaceAccountingTest;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A small file's dirty data costs what it needs, not a whole record: 2,000 files of 1 to 5,000 bytes written
 * without a commit raise the dirty figure (df's used, which counts dirty data) by their buffers' sizes (4 or
 * 8 KiB each: the next power of two from a sector), trigger no commit (128 KiB buffers each would have passed
 * the dirty limit's background commit after 128 files), and everything reads back byte-exact after export and
 * import. Short blocks also grow, are truncated, extended and punched as full ones would be.
 */
@Timeout(300)
class SmallFileBuffersMountTest {
    static final int FILES = 2000;
    static final int RECORD = 128 << 10;

    /** The dirty buffer the pool should give a file of {@code size} bytes written from 0. */
    static long expectedBuffer(long size) {
        if (size > RECORD) return (size + RECORD - 1) / RECORD * RECORD;
        long b = 4096;
        while (b < size) b <<= 1;
        return b;
    }

    @Test
    void smallFilesAreDirtyAtTheirSizeAndReadBackAfterImport() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 512L << 20);
        Pool pool = Pool.create("sf", List.<BlockDevice>of(dev));
        pool.createDataset("sf/d", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        Random rnd = new Random(10);
        Map<String, byte[]> files = new LinkedHashMap<>();
        Path mp = MountedFsKit.newMountpoint("pool-smallfiles");
        long[] committedGrowth = new long[1];
        mounted(pool, mp, () -> {
            FileStore store = Files.getFileStore(mp);
            long usedBefore = store.getTotalSpace() - store.getUnallocatedSpace();
            long txgBefore = pool.txg();
            long expected = 0;
            for (int i = 0; i < FILES; i++) {
                byte[] b = new byte[1 + rnd.nextInt(i % 3 == 0 ? 1024 : 5000)];
                rnd.nextBytes(b);
                String name = "f" + i;
                if (i % 3 == 2 && b.length > 100) { // two writes: the second grows the buffer past its first size
                    try (FileChannel c = FileChannel.open(mp.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                        c.write(ByteBuffer.wrap(b, 0, 100));
                        c.write(ByteBuffer.wrap(b, 100, b.length - 100));
                    }
                } else {
                    Files.write(mp.resolve(name), b, StandardOpenOption.CREATE_NEW);
                }
                files.put(name, b);
                expected += expectedBuffer(b.length);
            }
            long used = store.getTotalSpace() - store.getUnallocatedSpace();
            assertEquals(txgBefore, pool.txg(), "2,000 small files triggered no commit");
            assertEquals(expected, used - usedBefore, "df's used grew by the small files' buffers (dirty data counted)");
            DatasetSpace.Usage u = SpaceMountTest.usage(pool, "sf/d"); // commits
            committedGrowth[0] = u.used();
            return null;
        });
        // the commit stores each file in a block of its buffer's size or less: the dirty figure did not undercount
        long data = files.values().stream().mapToLong(b -> (b.length + 4095) / 4096 * 4096).sum();
        assertTrue(committedGrowth[0] >= data, "the dataset uses at least its files' sectors: " + committedGrowth[0]);
        SpaceAccountingTest.assertExact(pool, "sf");
        pool.close();

        Pool again = Pool.open(List.<BlockDevice>of(dev));
        PoolVerifier.Report rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        mounted(again, mp, () -> {
            for (var e : files.entrySet()) assertArrayEquals(e.getValue(), Files.readAllBytes(mp.resolve(e.getKey())), e.getKey());
            return null;
        });
        again.close();
    }

    /**
     * Short blocks under growth, truncation (down, up within the record, up past it), hole punching and
     * overwrites, checked against a byte model before and after a commit and after export and import.
     */
    @Test
    void shortBlocksGrowTruncateAndPunchLikeFullOnes() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Pool pool = Pool.create("sb", List.<BlockDevice>of(dev));
        pool.createDataset("sb/d", Map.of("compression", "lz4", "recordsize", "64K"));
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-shortblocks");
        Map<String, byte[]> model = new LinkedHashMap<>();
        Random rnd = new Random(11);
        mounted(pool, mp, () -> {
            for (int f = 0; f < 24; f++) {
                String name = "s" + f;
                byte[] m = new byte[0];
                try (RandomAccessFile raf = new RandomAccessFile(mp.resolve(name).toFile(), "rw")) {
                    FileChannel c = raf.getChannel();
                    for (int step = 0; step < 12; step++) {
                        int op = rnd.nextInt(5);
                        if (op <= 1) { // a write, mostly inside or just past the first record
                            int off = rnd.nextInt(op == 0 ? 6000 : 140_000);
                            byte[] b = new byte[1 + rnd.nextInt(3000)];
                            rnd.nextBytes(b);
                            c.write(ByteBuffer.wrap(b), off);
                            if (off + b.length > m.length) m = java.util.Arrays.copyOf(m, off + b.length);
                            System.arraycopy(b, 0, m, off, b.length);
                        } else if (op == 2) { // truncate down or up, sometimes past one record
                            int size = rnd.nextInt(rnd.nextBoolean() ? 9000 : 150_000);
                            raf.setLength(size); // ftruncate(2): FileChannel.truncate never extends
                            m = java.util.Arrays.copyOf(m, size);
                        } else if (op == 3 && m.length > 0) { // a partial overwrite of bytes past a short block's end
                            int off = rnd.nextInt(m.length);
                            c.write(ByteBuffer.wrap(new byte[] {7}), off);
                            m[off] = 7;
                        } else {
                            // a commit in between: short blocks are then stored, re-read and re-dirtied
                            SpaceMountTest.sync(mp);
                        }
                        assertArrayEquals(m, Files.readAllBytes(mp.resolve(name)), name + " step " + step);
                    }
                }
                model.put(name, m);
            }
            SpaceMountTest.sync(mp);
            for (var e : model.entrySet()) assertArrayEquals(e.getValue(), Files.readAllBytes(mp.resolve(e.getKey())), e.getKey());
            return null;
        });
        SpaceAccountingTest.assertExact(pool, "sb");
        pool.close();
        Pool again = Pool.open(List.<BlockDevice>of(dev));
        PoolVerifier.Report rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        mounted(again, mp, () -> {
            for (var e : model.entrySet()) assertArrayEquals(e.getValue(), Files.readAllBytes(mp.resolve(e.getKey())), e.getKey());
            return null;
        });
        again.close();
    }

    /** Mounts sf/d or sb/d without timed commits (only the test's and the dirty limit's commits happen). */
    private static void mounted(Pool pool, Path mp, Callable<Void> work) throws Exception {
        PoolFsMountTest.mounted(new PoolFs(pool.dataset(pool.name() + "/d"), false, 0), mp, work);
    }
}
