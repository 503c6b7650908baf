package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.O_DIRECT;
import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.pattern;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.withFd;
import static dev.ringfuse.testkit.internal.Check.umask;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Stat;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the bytes live: sparse files, fallocate, SEEK_DATA/SEEK_HOLE, copy_file_range, O_TMPFILE, mmap, O_DIRECT. */
public interface PosixSpaceScenarios extends ScenarioContext {
    long KIB = 1024, MIB = 1024 * KIB, GIB = 1024 * MIB;

    /** A 4 KiB write at 5 GiB makes a sparse file that reads zeros before it and takes little space (SPARSE). */
    @Test
    default void sparseFileBeyondFourGiB() throws Exception {
        requires(Feature.SPARSE);
        Path f = dir().resolve("sparse");
        byte[] data = pattern(11, 4096);
        try (FileChannel ch = FileChannel.open(f, CREATE, WRITE)) {
            ch.write(ByteBuffer.wrap(data), 5 * GIB);
        }
        Stat st = Libc.stat(s(f));
        assertEquals(5 * GIB + 4096, st.size());
        assertTrue(st.blocks() <= 2048, "a 4 KiB write at 5 GiB allocated " + st.blocks() + " blocks");
        try (FileChannel ch = FileChannel.open(f, READ)) {
            for (long off : new long[] {0, 2 * GIB, 4 * GIB + 12345, 5 * GIB - 4096}) {
                ByteBuffer b = ByteBuffer.allocate(4096);
                assertEquals(4096, ch.read(b, off));
                assertArrayEquals(new byte[4096], b.array(), "zeros expected at " + off);
            }
            ByteBuffer b = ByteBuffer.allocate(8192);
            assertEquals(4096, ch.read(b, 5 * GIB));
            assertArrayEquals(data, Arrays.copyOf(b.array(), 4096));
        }
    }

    /**
     * fallocate extends the size with zeros, KEEP_SIZE leaves the length, PUNCH_HOLE|KEEP_SIZE zeroes a range and
     * frees its blocks, PUNCH_HOLE alone is refused (FALLOCATE).
     */
    @Test
    default void fallocateExtendsKeepsSizeAndPunchesHoles() throws Exception {
        requires(Feature.FALLOCATE);
        Path f = Files.createFile(dir().resolve("f"));
        withFd(f, Libc.O_RDWR, fd -> {
            Libc.fallocate(fd, 0, 0, MIB);
            assertEquals(MIB, Libc.fstat(fd).size());
            assertArrayEquals(new byte[4096], Libc.pread(fd, 4096, 500_000));

            Libc.fallocate(fd, Libc.FALLOC_FL_KEEP_SIZE, MIB, 2 * MIB);
            assertEquals(MIB, Libc.fstat(fd).size());
            assertEquals(0, Libc.pread(fd, 4096, MIB).length, "nothing to read past the kept size");

            byte[] data = pattern(12, (int) MIB);
            Libc.pwrite(fd, data, 0);
            long before = Libc.fstat(fd).blocks();
            Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, 256 * KIB, 256 * KIB);
            Stat st = Libc.fstat(fd);
            assertEquals(MIB, st.size());
            assertEquals(before - 512, st.blocks(), "punching 256 KiB frees exactly 512 blocks");
            byte[] expect = data.clone();
            Arrays.fill(expect, (int) (256 * KIB), (int) (512 * KIB), (byte) 0);
            assertArrayEquals(expect, Libc.pread(fd, (int) MIB, 0));

            assertErrno(Errno.EOPNOTSUPP, () -> Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE, 0, 4096));
        });
    }

    /** fallocate allocates the blocks of the range, with KEEP_SIZE past the end too (FALLOCATE, PREALLOCATE). */
    @Test
    default void fallocateReservesBlocks() throws Exception {
        requires(Feature.FALLOCATE);
        requires(Feature.PREALLOCATE);
        Path f = Files.createFile(dir().resolve("f"));
        withFd(f, Libc.O_RDWR, fd -> {
            Libc.fallocate(fd, 0, 0, MIB);
            Stat st = Libc.fstat(fd);
            assertEquals(MIB, st.size());
            assertTrue(st.blocks() * 512 >= MIB, "fallocate of 1 MiB allocated " + st.blocks() + " blocks");
            Libc.fallocate(fd, Libc.FALLOC_FL_KEEP_SIZE, MIB, 2 * MIB);
            st = Libc.fstat(fd);
            assertEquals(MIB, st.size());
            assertTrue(st.blocks() * 512 >= 3 * MIB, "KEEP_SIZE to 3 MiB allocated " + st.blocks() + " blocks");
        });
    }

    /** lseek SEEK_DATA and SEEK_HOLE find the data and the holes of a sparse file (SEEK_HOLE). */
    @Test
    default void seekDataAndSeekHoleFindTheExtents() throws Exception {
        requires(Feature.SEEK_HOLE);
        Path f = Files.createFile(dir().resolve("f"));
        withFd(f, Libc.O_RDWR, fd -> {
            Libc.pwrite(fd, pattern(13, (int) (64 * KIB)), 0);
            Libc.pwrite(fd, pattern(14, (int) (64 * KIB)), MIB);
            Libc.truncate(s(f), 2 * MIB);
            assertEquals(0, Libc.lseek(fd, 0, Libc.SEEK_DATA));
            assertEquals(64 * KIB, Libc.lseek(fd, 0, Libc.SEEK_HOLE));
            assertEquals(MIB, Libc.lseek(fd, 64 * KIB, Libc.SEEK_DATA));
            assertEquals(MIB, Libc.lseek(fd, 100 * KIB, Libc.SEEK_DATA));
            assertEquals(MIB + 64 * KIB, Libc.lseek(fd, MIB, Libc.SEEK_HOLE));
            assertEquals(MIB + 100 * KIB, Libc.lseek(fd, MIB + 100 * KIB, Libc.SEEK_HOLE));
            assertErrno(Errno.ENXIO, () -> Libc.lseek(fd, MIB + 64 * KIB, Libc.SEEK_DATA));
            assertErrno(Errno.ENXIO, () -> Libc.lseek(fd, 2 * MIB, Libc.SEEK_DATA));
            assertErrno(Errno.ENXIO, () -> Libc.lseek(fd, 2 * MIB, Libc.SEEK_HOLE));
        });
    }

    /** copy_file_range copies exactly the range asked between unaligned offsets, and nothing at end of file. */
    @Test
    default void copyFileRangeCopiesExactly() throws Exception {
        byte[] src = pattern(15, (int) (3 * MIB));
        Path a = file(dir().resolve("a"), src);
        Path b = Files.createFile(dir().resolve("b"));
        int in = Libc.open(s(a), Libc.O_RDONLY, 0);
        int out = Libc.open(s(b), Libc.O_RDWR, 0);
        try {
            long done = 0, len = 1_500_000;
            while (done < len) {
                long n = Libc.copyFileRange(in, 100_000 + done, out, 12_345 + done, len - done);
                assertTrue(n > 0, "copy_file_range made no progress at " + done);
                done += n;
            }
            assertEquals(0, Libc.copyFileRange(in, src.length, out, 0, 4096), "nothing to copy at EOF");
            byte[] expect = new byte[12_345 + 1_500_000];
            System.arraycopy(src, 100_000, expect, 12_345, 1_500_000);
            assertArrayEquals(expect, Files.readAllBytes(b));
            assertErrno(Errno.EINVAL, () -> Libc.copyFileRange(out, 0, out, 1000, 4096)); // overlapping, same file
        } finally {
            Libc.close(in);
            Libc.close(out);
        }
    }

    /** O_TMPFILE makes a file with no name, which linkat can give one (TMPFILE). */
    @Test
    default void tmpfileIsUnnamedUntilLinked() throws Exception {
        requires(Feature.TMPFILE);
        int fd = Libc.open(s(dir()), Libc.O_TMPFILE | Libc.O_RDWR, 0640);
        try {
            Stat st = Libc.fstat(fd);
            assertEquals(Stat.S_IFREG | (0640 & ~umask()), st.mode());
            assertEquals(0, st.nlink());
            assertEquals(List.of(), Libc.listDir(s(dir()), 4096));
            Libc.write(fd, "anonymous".getBytes());
            Libc.linkat("/proc/self/fd/" + fd, s(dir().resolve("named")), Libc.AT_SYMLINK_FOLLOW);
            assertEquals(List.of("named"), Libc.listDir(s(dir()), 4096));
            assertEquals("anonymous", Files.readString(dir().resolve("named")));
            assertEquals(1, Libc.fstat(fd).nlink());
        } finally {
            Libc.close(fd);
        }
        int excl = Libc.open(s(dir()), Libc.O_TMPFILE | Libc.O_EXCL | Libc.O_RDWR, 0600);
        try {
            assertErrno(Errno.ENOENT, () -> Libc.linkat("/proc/self/fd/" + excl, s(dir().resolve("never")), Libc.AT_SYMLINK_FOLLOW));
        } finally {
            Libc.close(excl);
        }
    }

    /** Writes through a shared mapping reach read(2), and write(2) shows in the mapping. */
    @Test
    default void mmapWritesReachReadersAndReadsSeeWrites() throws Exception {
        int size = 3 * 4096 + 100;
        byte[] data = pattern(16, size);
        Path f = file(dir().resolve("f"), data);
        try (FileChannel ch = FileChannel.open(f, READ, WRITE)) {
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            for (int i = 0; i < size; i++) assertEquals(data[i], m.get(i), "mapped byte " + i);
            byte[] patch = pattern(17, 5000);
            m.put(4000, patch);
            m.force();
            System.arraycopy(patch, 0, data, 4000, patch.length);
        }
        assertArrayEquals(data, Files.readAllBytes(f));
        try (FileChannel w = FileChannel.open(f, WRITE); FileChannel r = FileChannel.open(f, READ)) {
            MappedByteBuffer ro = r.map(FileChannel.MapMode.READ_ONLY, 0, size);
            w.write(ByteBuffer.wrap("through write(2)".getBytes()), 8190);
            byte[] seen = new byte[16];
            ro.get(8190, seen);
            assertEquals("through write(2)", new String(seen));
        }
    }

    /** O_DIRECT reads and writes with aligned buffers move the exact bytes (DIRECT_IO). */
    @Test
    default void directIoWithAlignedBuffers() throws Exception {
        requires(Feature.DIRECT_IO);
        Path f = dir().resolve("direct");
        int align = 4096, len = 64 * 1024;
        byte[] data = pattern(18, len);
        ByteBuffer buf = ByteBuffer.allocateDirect(len + align).alignedSlice(align);
        buf.put(data).flip();
        try (FileChannel ch = FileChannel.open(f, CREATE, WRITE, O_DIRECT)) {
            assertEquals(len, ch.write(buf, 3 * align));
        }
        assertEquals(3 * align + len, Files.size(f));
        byte[] plain = Files.readAllBytes(f);
        assertArrayEquals(data, Arrays.copyOfRange(plain, 3 * align, 3 * align + len));
        ByteBuffer in = ByteBuffer.allocateDirect(len + align).alignedSlice(align);
        try (FileChannel ch = FileChannel.open(f, READ, O_DIRECT)) {
            assertEquals(len, ch.read(in, 3 * align));
        }
        byte[] back = new byte[len];
        in.flip().get(back);
        assertArrayEquals(data, back);
    }
}
