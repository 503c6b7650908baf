package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.testkit.Feature;
import dev.ringfuse.testkit.internal.Check;
import dev.ringfuse.testkit.internal.Libc;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The POSIX suite on a pool dataset mounted with the kernel's writeback cache. Claimed: all that
 * {@link PoolFsScenarios} claims, SEEK_HOLE included: with a writable handle open the pool has the kernel write
 * its dirty pages back before it answers (pool/DESIGN.md, "Writeback cache", lseek).
 * One difference (pool/DESIGN.md, "Writeback cache"): st_blocks counts only the bytes that reached the pool,
 * not pages still dirty in the kernel, so the fallocate scenario measures its punch after an fsync.
 */
abstract class PoolFsWritebackScenarios extends PoolFsScenarios {
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.PREALLOCATE));
    }

    /**
     * SEEK_DATA from a read-only descriptor finds pages another descriptor wrote and has not written back
     * (a shared mapping's, which keep their handle open), and, once every writer is closed, what they wrote.
     */
    @Test
    public void seekDataSeesPagesOtherDescriptorsHaveNotWrittenBack() throws Exception {
        Path f = Files.createFile(dir().resolve("f"));
        try (FileChannel w = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            w.truncate(4 * MIB);
            java.nio.MappedByteBuffer m = w.map(FileChannel.MapMode.READ_WRITE, 0, 4 * MIB);
            m.put((int) (3 * MIB), (byte) 7); // a dirty page in the kernel only
            Check.withFd(f, Libc.O_RDONLY, fd -> {
                assertEquals(3 * MIB, Libc.lseek(fd, 0, Libc.SEEK_DATA), "the mapped page is data");
                assertEquals(3 * MIB + 4096, Libc.lseek(fd, 3 * MIB, Libc.SEEK_HOLE));
            });
        }
        try (FileChannel w = FileChannel.open(f, StandardOpenOption.WRITE)) {
            w.write(java.nio.ByteBuffer.wrap(Check.pattern(3, 4096)), MIB);
        }
        Check.withFd(f, Libc.O_RDONLY, fd -> {
            assertEquals(MIB, Libc.lseek(fd, 0, Libc.SEEK_DATA), "written, closed, then asked with no writer open");
            assertEquals(3 * MIB, Libc.lseek(fd, MIB + 4096, Libc.SEEK_DATA));
        });
    }

    /**
     * A writer's back-to-back write and SEEK_DATA, 1,000 times: each lseek is answered by the pool. Once, a
     * deferred lseek whose permit was still held when the caller's next one came was refused ENOSYS, after
     * which the kernel answered every lseek of the mount by itself (data from 0): 2,900 wrong answers of 3,000.
     */
    @Test
    public void backToBackLseeksOfAWriterAreAllAnsweredByThePool() throws Exception {
        Path f = Files.createFile(dir().resolve("f"));
        Check.withFd(f, Libc.O_RDWR, fd -> {
            for (int i = 0; i < 1000; i++) {
                Libc.pwrite(fd, Check.pattern(i, 4096), MIB + (i % 8) * 4096L);
                assertEquals(MIB, Libc.lseek(fd, 0, Libc.SEEK_DATA), "lseek " + i);
            }
        });
    }

    /** The scenario of the same name with an fsync between the write and the punch (see the class comment). */
    @Override
    @Test
    public void fallocateExtendsKeepsSizeAndPunchesHoles() throws Exception {
        Path f = Files.createFile(dir().resolve("f"));
        Check.withFd(f, Libc.O_RDWR, fd -> {
            Libc.fallocate(fd, 0, 0, MIB);
            assertEquals(MIB, Libc.fstat(fd).size());
            assertArrayEquals(new byte[4096], Libc.pread(fd, 4096, 500_000));
            Libc.fallocate(fd, Libc.FALLOC_FL_KEEP_SIZE, MIB, 2 * MIB);
            assertEquals(MIB, Libc.fstat(fd).size());
            assertEquals(0, Libc.pread(fd, 4096, MIB).length, "nothing to read past the kept size");
            byte[] data = Check.pattern(12, (int) MIB);
            Libc.pwrite(fd, data, 0);
            try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
                c.force(true); // the dirty pages of the inode, whichever descriptor wrote them
            }
            long before = Libc.fstat(fd).blocks();
            Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, 256 * KIB, 256 * KIB);
            assertEquals(MIB, Libc.fstat(fd).size());
            assertEquals(before - 512, Libc.fstat(fd).blocks(), "punching 256 KiB frees exactly 512 blocks");
            byte[] expect = data.clone();
            Arrays.fill(expect, (int) (256 * KIB), (int) (512 * KIB), (byte) 0);
            assertArrayEquals(expect, Libc.pread(fd, (int) MIB, 0));
            Check.assertErrno(dev.ringfuse.Errno.EOPNOTSUPP, () -> Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE, 0, 4096));
        });
    }
}
