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
 * {@link PoolFsScenarios} claims but SEEK_HOLE, which the pool refuses (ENOSYS) under the writeback cache; its
 * scenario is replaced by one that holds the kernel's own answer.
 * One difference (pool/DESIGN.md, "Writeback cache"): st_blocks counts only the bytes that reached the pool,
 * not pages still dirty in the kernel, so the fallocate scenario measures its punch after an fsync.
 */
abstract class PoolFsWritebackScenarios extends PoolFsScenarios {
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.PREALLOCATE, Feature.SEEK_HOLE));
    }

    /**
     * In place of the SEEK_HOLE scenario, unclaimed here: the pool answers FUSE_LSEEK with ENOSYS, the kernel
     * then answers lseek itself as for a file without holes (all data up to the size, ENXIO from it), which
     * is never a wrong answer, only a coarse one.
     */
    @Override
    @Test
    public void seekDataAndSeekHoleFindTheExtents() throws Exception {
        Path f = Files.createFile(dir().resolve("f"));
        Check.withFd(f, Libc.O_RDWR, fd -> {
            Libc.pwrite(fd, Check.pattern(13, (int) (64 * KIB)), 0);
            Libc.pwrite(fd, Check.pattern(14, (int) (64 * KIB)), MIB);
            Libc.truncate(f.toString(), 2 * MIB);
            assertEquals(0, Libc.lseek(fd, 0, Libc.SEEK_DATA));
            assertEquals(100 * KIB, Libc.lseek(fd, 100 * KIB, Libc.SEEK_DATA), "a hole reads as data");
            assertEquals(2 * MIB, Libc.lseek(fd, 0, Libc.SEEK_HOLE), "the only hole is the end of the file");
            assertEquals(2 * MIB, Libc.lseek(fd, MIB + 100 * KIB, Libc.SEEK_HOLE));
            Check.assertErrno(dev.ringfuse.Errno.ENXIO, () -> Libc.lseek(fd, 2 * MIB, Libc.SEEK_DATA));
            Check.assertErrno(dev.ringfuse.Errno.ENXIO, () -> Libc.lseek(fd, 2 * MIB, Libc.SEEK_HOLE));
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
