package dev.ringfuse.pool.fs;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.DatasetSpace;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.SpaceAccountingTest;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import dev.ringfuse.testkit.internal.Libc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * fallocate on a mounted dataset as OpenZFS answers it: PUNCH_HOLE|KEEP_SIZE frees whole records (to the
 * snapshot's dead list while one holds them), holes show in SEEK_HOLE, st_blocks and every space counter;
 * mode 0 and KEEP_SIZE reserve nothing but get ENOSPC past 100/110 of what the dataset has available (a quota
 * included); the pool verifies clean, counters recomputed, before and after export and import.
 */
@Timeout(300)
class FallocateMountTest {
    static final int REC = 128 << 10, MIB = 1 << 20;

    @Test
    void punchHoleFreesRecordsAndEveryCounterFollows() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Pool pool = Pool.create("fp", List.<BlockDevice>of(dev));
        pool.createDataset("fp/d", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-punch");
        byte[] data = SpaceMountTest.random(4 * MIB, 7);
        byte[] expect = data.clone();
        PoolFsMountTest.mounted(pool, "fp/d", mp, () -> {
            Path f = mp.resolve("f");
            Files.write(f, data);
            SpaceMountTest.sync(mp);
            DatasetSpace.Usage before = SpaceAccountingTest.assertExact(pool, "fp/d");
            Snapshots.create(pool, "fp/d@s");
            int fd = Libc.open(f.toString(), Libc.O_RDWR, 0);
            try {
                long blocks = Libc.fstat(fd).blocks();
                Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, MIB, MIB); // 8 whole records
                assertEquals(4L * MIB, Libc.fstat(fd).size());
                assertEquals(blocks - MIB / 512, Libc.fstat(fd).blocks(), "8 records freed");
                // 100 bytes inside a record: the record is rewritten with zeros there, not freed
                Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, 3L * MIB + 10, 100);
                java.util.Arrays.fill(expect, MIB, 2 * MIB, (byte) 0);
                java.util.Arrays.fill(expect, 3 * MIB + 10, 3 * MIB + 110, (byte) 0);
                assertEquals(MIB, Libc.lseek(fd, 0, Libc.SEEK_HOLE));
                assertEquals(2L * MIB, Libc.lseek(fd, MIB, Libc.SEEK_DATA));
                assertErrno(Errno.EOPNOTSUPP, () -> Libc.fallocate(fd, 0x10 /* ZERO_RANGE */, 0, 4096));
            } finally {
                Libc.close(fd);
            }
            SpaceMountTest.sync(mp);
            assertArrayEquals(expect, Files.readAllBytes(f));
            DatasetSpace.Usage after = SpaceAccountingTest.assertExact(pool, "fp/d");
            // the snapshot still holds the 8 records, the cut record's old copy and the B-tree nodes replaced since
            assertTrue(after.usedBySnapshots() >= MIB + REC && after.usedBySnapshots() < MIB + REC + (256 << 10),
                    "the punched records went to the snapshot's dead list: " + after.usedBySnapshots());
            assertTrue(after.referenced() <= before.referenced() - MIB + (64 << 10),
                    "referenced dropped by the punched megabyte: " + before.referenced() + " -> " + after.referenced());
            System.out.printf("punch 1 MiB + 100 B under a snapshot: referenced %d -> %d, usedbysnapshots %d%n",
                    before.referenced(), after.referenced(), after.usedBySnapshots());
            long freed = Snapshots.destroy(pool, "fp/d@s");
            assertEquals(after.usedBySnapshots(), freed, "destroying the snapshot frees what it alone held");
            assertEquals(0, SpaceAccountingTest.assertExact(pool, "fp/d").usedBySnapshots());
            return null;
        });
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
        Pool again = Pool.open(List.<BlockDevice>of(dev));
        PoolFsMountTest.mounted(again, "fp/d", mp, () -> {
            assertArrayEquals(expect, Files.readAllBytes(mp.resolve("f")));
            int fd = Libc.open(mp.resolve("f").toString(), Libc.O_RDONLY, 0);
            try {
                assertEquals(MIB, Libc.lseek(fd, 0, Libc.SEEK_HOLE), "the hole survives export and import");
            } finally {
                Libc.close(fd);
            }
            return null;
        });
        SpaceAccountingTest.assertExact(again, "fp");
        rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        again.close();
    }

    @Test
    void allocationReservesNothingAndChecksSpaceAsZfs() throws Exception {
        Pool pool = Pool.create("fa", List.<BlockDevice>of(new MemoryDevice("m", 128L << 20)));
        pool.createDataset("fa/d", Map.of("compression", "off"));
        pool.setProperty("fa/d", "quota", "32M");
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-falloc");
        PoolFsMountTest.mounted(pool, "fa/d", mp, () -> {
            Path f = Files.createFile(mp.resolve("f"));
            long avail = Files.getFileStore(mp).getUsableSpace();
            int fd = Libc.open(f.toString(), Libc.O_RDWR, 0);
            try {
                Libc.fallocate(fd, 0, 0, 16L * MIB);
                assertEquals(16L * MIB, Libc.fstat(fd).size(), "mode 0 extends the size");
                assertEquals(0, Libc.fstat(fd).blocks(), "and reserves nothing: a copy-on-write write takes new blocks anyway");
                assertArrayEquals(new byte[4096], Libc.pread(fd, 4096, 9L * MIB));
                assertTrue(Files.getFileStore(mp).getUsableSpace() > avail - MIB, "df does not take the 16 MiB");
                // 30 MiB + 10 % is more than the quota leaves: ENOSPC (not EDQUOT), as zfs_statvfs counts the quota
                assertErrno(Errno.ENOSPC, () -> Libc.fallocate(fd, 0, 0, 30L * MIB));
                assertErrno(Errno.ENOSPC, () -> Libc.fallocate(fd, Libc.FALLOC_FL_KEEP_SIZE, 0, 64L * MIB));
                assertEquals(16L * MIB, Libc.fstat(fd).size(), "a refused fallocate changes nothing");
                Libc.fallocate(fd, Libc.FALLOC_FL_KEEP_SIZE, 16L * MIB, 8L * MIB);
                assertEquals(16L * MIB, Libc.fstat(fd).size(), "KEEP_SIZE leaves the size");
            } finally {
                Libc.close(fd);
            }
            return null;
        });
        SpaceAccountingTest.assertExact(pool, "fa");
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
    }
}
