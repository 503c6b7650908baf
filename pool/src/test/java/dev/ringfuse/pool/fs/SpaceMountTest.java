package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.admin.PoolAdmin;
import dev.ringfuse.pool.admin.PoolControl;
import dev.ringfuse.pool.admin.PoolRegistry;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.DatasetSpace;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.SpaceAccountingTest;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quotas, reservations and the dataset's view in statfs on real mounts: write(2), create and setxattr get
 * EDQUOT at a quota, deletion still works past it and frees; a reservation makes another dataset get ENOSPC
 * first; df shows used + available of the dataset (the quota as its size); the figures stay exact against a
 * walk of the trees through snapshots and survive export and import.
 */
@Timeout(300)
class SpaceMountTest {
    static final String EDQUOT = "Disk quota exceeded";

    @TempDir
    Path tmp;

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Writes {@code chunk} into {@code file} until an error; returns the bytes written and the error (or null). */
    static Object[] fill(Path file, byte[] chunk, long limit) {
        long written = 0;
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            while (written < limit) {
                ByteBuffer b = ByteBuffer.wrap(chunk);
                while (b.hasRemaining()) written += c.write(b);
            }
            c.force(true);
        } catch (IOException e) {
            return new Object[] {written, e};
        }
        return new Object[] {written, null};
    }

    static void sync(Path dir) throws IOException {
        try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
            c.force(true);
        }
    }

    /**
     * Commits (fsyncdir) until {@code done} holds for the dataset's figures: a deleted file's blocks go when the
     * kernel forgets its inode, which it sends on its own time after the unlink.
     */
    static DatasetSpace.Usage await(Pool pool, String ds, Path mp, java.util.function.Predicate<DatasetSpace.Usage> done)
            throws Exception {
        DatasetSpace.Usage u = null;
        // bounded in time, not in rounds: at a load of 60 a round (three requests and two commits) can take
        // seconds, and 100 of them used up the mount's whole limit, which then said only "did not finish"
        long t0 = System.nanoTime(), limit = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        int rounds = 0;
        while (rounds == 0 || System.nanoTime() - t0 < limit) {
            rounds++;
            sync(mp);
            u = usage(pool, ds);
            if (done.test(u)) return u;
            Thread.sleep(100);
        }
        throw new AssertionError("figures of " + ds + " never got there in " + rounds + " rounds, "
                + (System.nanoTime() - t0) / 1_000_000 + " ms: " + u);
    }

    static DatasetSpace.Usage usage(Pool pool, String ds) throws IOException {
        pool.lock().lock();
        try {
            pool.commit();
            return pool.space().usage(pool.lookup(ds));
        } finally {
            pool.lock().unlock();
        }
    }

    @Test
    void quotaGivesEdquotAndDeletionStillWorks() throws Exception {
        Pool pool = Pool.create("qm", List.<BlockDevice>of(new MemoryDevice("m", 256L << 20)));
        pool.createDataset("qm/d", Map.of("compression", "off"));
        pool.setProperty("qm/d", "quota", "8M");
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-quota");
        byte[] chunk = random(1 << 20, 1);
        PoolFsMountTest.mounted(pool, "qm/d", mp, () -> {
            FileStore store = Files.getFileStore(mp);
            assertEquals(8L << 20, store.getTotalSpace(), "df's size is the quota");
            Object[] r = fill(mp.resolve("big"), chunk, 64L << 20);
            IOException e = (IOException) r[1];
            long written = (Long) r[0];
            assertNotNull(e, "writing 64 MiB under an 8 MiB quota must fail");
            assertTrue(String.valueOf(e.getMessage()).contains(EDQUOT), e.toString());
            assertTrue(written >= 6L << 20, "wrote " + written + " bytes before EDQUOT");
            DatasetSpace.Usage u = usage(pool, "qm/d");
            assertTrue(u.used() <= (8L << 20) + (256 << 10), "used " + u.used() + " stays within the quota and one txg's nodes");
            assertEquals(8L << 20, store.getTotalSpace(), "df's size is still the quota");
            assertEquals(u.available(), store.getUsableSpace(), "df's available is the dataset's");

            // at the quota exactly: creating a name, an xattr and more data all get EDQUOT
            pool.setProperty("qm/d", "quota", Long.toString(u.used()));
            IOException create = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> Files.createFile(mp.resolve("new")));
            assertTrue(String.valueOf(create.getMessage()).contains(EDQUOT), create.toString());
            UserDefinedFileAttributeView x = Files.getFileAttributeView(mp.resolve("big"), UserDefinedFileAttributeView.class);
            IOException xattr = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> x.write("k", ByteBuffer.wrap(new byte[100])));
            assertTrue(String.valueOf(xattr.getMessage()).contains(EDQUOT), xattr.toString());
            assertEquals(0, store.getUsableSpace(), "nothing available at the quota");

            // deletion works past the quota and gives the space back
            Files.delete(mp.resolve("big"));
            await(pool, "qm/d", mp, after -> after.used() < 1L << 20); // deleting freed the file
            pool.setProperty("qm/d", "quota", "8M");
            assertTrue(store.getUsableSpace() > 6L << 20, "df shows the space back: " + store.getUsableSpace());
            Object[] again = fill(mp.resolve("again"), chunk, 4L << 20);
            assertEquals(null, again[1], "writing again after the delete");
            return null;
        });
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
    }

    @Test
    void aReservationMakesOtherDatasetsRunOutFirst() throws Exception {
        Pool pool = Pool.create("rm", List.<BlockDevice>of(new MemoryDevice("m", 128L << 20)));
        pool.createDataset("rm/res", Map.of("compression", "off"));
        pool.createDataset("rm/other", Map.of("compression", "off"));
        pool.setProperty("rm/res", "reservation", "48M");
        pool.commit();
        Path mpOther = MountedFsKit.newMountpoint("pool-res-other"), mpRes = MountedFsKit.newMountpoint("pool-res-res");
        byte[] chunk = random(1 << 20, 2);
        PoolFsMountTest.mounted(pool, "rm/other", mpOther, () -> PoolFsMountTest.mounted(pool, "rm/res", mpRes, () -> {
            Object[] r = fill(mpOther.resolve("f"), chunk, 256L << 20);
            IOException e = (IOException) r[1];
            assertNotNull(e, "the other dataset runs out");
            assertTrue(String.valueOf(e.getMessage()).contains("No space left"), e.toString());
            var a = pool.io().allocator();
            long poolLeft = a.freeBytes() - a.reserve();
            assertTrue(poolLeft >= (46L << 20), "the other dataset stopped before the reservation: " + poolLeft + " bytes left");
            assertTrue(Files.getFileStore(mpOther).getUsableSpace() < 2L << 20, "df of the other shows it full");
            assertTrue(Files.getFileStore(mpRes).getUsableSpace() >= 46L << 20, "df of the reserved one shows its reservation");
            // the reserved dataset still writes what it was promised
            Object[] mine = fill(mpRes.resolve("g"), chunk, 40L << 20);
            assertEquals(null, mine[1], "writing within the reservation");
            // deleting in the other dataset works although the pool is (for it) full
            Files.delete(mpOther.resolve("f"));
            sync(mpOther);
            return null;
        }));
        SpaceAccountingTest.assertExact(pool, "rm");
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
    }

    @Test
    void statfsShowsTheDatasetAndFiguresStayExactThroughSnapshotsAndImport() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Pool pool = Pool.create("sm", List.<BlockDevice>of(dev));
        pool.createDataset("sm/d", Map.of("compression", "lz4", "recordsize", "64K"));
        pool.createDataset("sm/e", Map.of());
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-statfs");
        byte[] noise = random(4 << 20, 3);
        byte[] text = "the same line again and again\n".repeat(140_000).getBytes();
        DatasetSpace.Usage[] last = new DatasetSpace.Usage[1];
        PoolFsMountTest.mounted(pool, "sm/d", mp, () -> {
            FileStore store = Files.getFileStore(mp);
            long availBefore = store.getUsableSpace();
            Files.write(mp.resolve("noise"), noise);
            Files.write(mp.resolve("text"), text);
            sync(mp);
            DatasetSpace.Usage u = usage(pool, "sm/d");
            assertEquals(u.used() + u.available(), store.getTotalSpace(), "df's size is used + available");
            assertEquals(u.available(), store.getUsableSpace());
            assertTrue(availBefore - store.getUsableSpace() >= noise.length, "df's available dropped by the data written");
            assertTrue(u.compressRatio() > 1.5, "lz4 on repeated text: " + u.compressRatio());
            SpaceAccountingTest.assertExact(pool, "sm");

            // a snapshot holds what is deleted after it: usedbysnapshots, not freed
            Snapshots.create(pool, "sm/d@s");
            Files.delete(mp.resolve("noise"));
            await(pool, "sm/d", mp, held -> held.usedBySnapshots() >= noise.length); // the snapshot holds the deleted file
            SpaceAccountingTest.assertExact(pool, "sm/d");
            Snapshots.clone(pool, "sm/d@s", "sm/c", Map.of());
            SpaceAccountingTest.assertExact(pool, "sm");
            pool.destroyDataset("sm/c", null);
            long freed = Snapshots.destroy(pool, "sm/d@s");
            assertTrue(freed >= noise.length, "destroying the snapshot frees the file: " + freed);
            assertEquals(0, SpaceAccountingTest.assertExact(pool, "sm/d").usedBySnapshots());
            return null;
        });
        last[0] = SpaceAccountingTest.assertExact(pool, "sm");
        pool.close();
        Pool again = Pool.open(List.<BlockDevice>of(dev));
        DatasetSpace.Usage back = SpaceAccountingTest.assertExact(again, "sm");
        assertEquals(SpaceAccountingTest.counters(last[0]), SpaceAccountingTest.counters(back), "the figures survive export and import");
        PoolVerifier.Report rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        again.close();
    }

    /** The VALUE column of `fs get -p` for {@code prop}. */
    static String value(String getOutput, String prop) {
        for (String line : getOutput.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[1].equals(prop)) return f[2];
        }
        throw new AssertionError(prop + " not in: " + getOutput);
    }

    @Test
    void fsCommandsOnAMountedPoolGoThroughItsControlSocket() throws Exception {
        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        Pool pool = Pool.create("cm", List.<BlockDevice>of(new MemoryDevice("m", 128L << 20)));
        registry.put("cm", List.of(tmp.resolve("held-by-the-mount.img"))); // never opened: the mount answers
        pool.createDataset("cm/d", Map.of("compression", "off"));
        pool.commit();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        PoolAdmin admin = new PoolAdmin(registry, new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8), System.err);
        Path mp = MountedFsKit.newMountpoint("pool-fsctl");
        byte[] chunk = random(1 << 20, 4);
        try (PoolControl control = PoolControl.start(registry, pool)) {
            PoolFsMountTest.mounted(pool, "cm/d", mp, () -> {
                Files.write(mp.resolve("f"), random(3 << 20, 5));
                admin.fsSet("cm/d", Map.of("quota", "5M"));
                Object[] r = fill(mp.resolve("g"), chunk, 8L << 20); // the mount applies the quota at once
                assertTrue(r[1] != null && String.valueOf(((IOException) r[1]).getMessage()).contains(EDQUOT), String.valueOf(r[1]));
                out.reset();
                admin.fsGet("cm/d", List.of("used", "available", "referenced", "quota"), true);
                DatasetSpace.Usage u = usage(pool, "cm/d");
                String got = out.toString(java.nio.charset.StandardCharsets.UTF_8);
                assertEquals(Long.toString(u.used()), value(got, "used"), got);
                assertEquals(Long.toString(u.referenced()), value(got, "referenced"), got);
                assertEquals(Long.toString(5L << 20), value(got, "quota"), got);
                out.reset();
                admin.fsList("cm", List.of("name", "used", "avail", "quota"), true);
                String list = out.toString(java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(list.contains("QUOTA") && list.lines().anyMatch(l -> l.startsWith("cm/d ") && l.trim().endsWith(Long.toString(5L << 20))), list);
                IOException refused = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> admin.fsSet("cm/d", Map.of("quota", "1M")));
                assertTrue(refused.getMessage().contains("less than the space used"), refused.getMessage());
                admin.fsSet("cm/d", Map.of("quota", "none"));
                out.reset();
                admin.fsGet("cm/d", List.of("quota"), false);
                assertEquals("none", value(out.toString(java.nio.charset.StandardCharsets.UTF_8), "quota"));
                return null;
            });
        }
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
    }
}
