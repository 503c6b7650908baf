package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.pattern;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.withFd;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Stat;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Regular files: create, read, write, truncate, append, fsync, open files that lose their name. */
public interface PosixFileScenarios extends ScenarioContext {

    /** A 3 MiB file reads back exactly, as a whole and from unaligned offsets. */
    @Test
    default void writeThenReadBackExactly() throws Exception {
        byte[] data = pattern(1, 3 * 1024 * 1024 + 123);
        Path f = file(dir().resolve("big"), data);
        assertEquals(data.length, Files.size(f));
        assertArrayEquals(data, Files.readAllBytes(f));
        try (FileChannel ch = FileChannel.open(f, READ)) {
            for (long off : new long[] {0, 4095, 131_071, 1 << 20, data.length - 7}) {
                ByteBuffer b = ByteBuffer.allocate(7);
                ch.read(b, off);
                assertArrayEquals(Arrays.copyOfRange(data, (int) off, (int) off + 7), b.array(), "at " + off);
            }
        }
    }

    /** Overlapping writes of many sizes at unaligned offsets leave the file equal to an in-memory model. */
    @Test
    default void unalignedWritesOfManySizesMatchAModel() throws Exception {
        Path f = dir().resolve("model");
        byte[] model = new byte[3 * 1024 * 1024];
        int[][] writes = {{0, 1}, {1, 4095}, {4095, 4097}, {10_000, 131_079}, {200_001, (1 << 20) + 3}, {5, 17},
            {1_300_000, 65_536}, {2_000_000, 777_777}};
        try (FileChannel ch = FileChannel.open(f, CREATE, WRITE)) {
            for (int[] w : writes) {
                byte[] d = pattern(w[0], w[1]);
                System.arraycopy(d, 0, model, w[0], w[1]);
                ByteBuffer b = ByteBuffer.wrap(d);
                while (b.hasRemaining()) ch.write(b, w[0] + b.position());
            }
        }
        assertEquals(2_777_777, Files.size(f));
        assertArrayEquals(Arrays.copyOf(model, 2_777_777), Files.readAllBytes(f));
    }

    /** Opening a running executable for writing fails with ETXTBSY and changes nothing. */
    @Test
    default void openingARunningExecutableForWritingIsRefusedAndChangesNothing() throws Exception {
        Path exe = dir().resolve("busy-exe");
        Files.copy(Path.of("/bin/sleep"), exe);
        Files.setPosixFilePermissions(exe, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        byte[] before = Files.readAllBytes(exe);
        Process p = new ProcessBuilder(exe.toString(), "30").start();
        try {
            for (int flags : new int[] {Libc.O_WRONLY, Libc.O_RDWR, Libc.O_RDONLY | Libc.O_TRUNC}) {
                assertErrno(Errno.ETXTBSY, () -> Libc.open(s(exe), flags, 0));
            }
            assertArrayEquals(before, Files.readAllBytes(exe), "a refused O_TRUNC must not have truncated");
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    /** Overwriting the middle of a file changes those bytes only. */
    @Test
    default void overwriteInTheMiddleKeepsTheRest() throws Exception {
        byte[] data = pattern(2, 65_536);
        Path f = file(dir().resolve("f"), data);
        byte[] patch = pattern(3, 100);
        try (FileChannel ch = FileChannel.open(f, WRITE)) {
            ch.write(ByteBuffer.wrap(patch), 30_000);
        }
        System.arraycopy(patch, 0, data, 30_000, 100);
        assertEquals(65_536, Files.size(f));
        assertArrayEquals(data, Files.readAllBytes(f));
    }

    /** truncate shrinks a file, and extending it again reads zeros where the old data was. */
    @Test
    default void truncateShrinksThenExtendsWithZeros() throws Exception {
        byte[] data = pattern(4, 10_000);
        Path f = file(dir().resolve("f"), data);
        try (FileChannel ch = FileChannel.open(f, WRITE)) {
            ch.truncate(4000);
        }
        assertArrayEquals(Arrays.copyOf(data, 4000), Files.readAllBytes(f));
        Libc.truncate(s(f), 9000);
        byte[] expect = Arrays.copyOf(Arrays.copyOf(data, 4000), 9000);
        assertArrayEquals(expect, Files.readAllBytes(f));
        Libc.truncate(s(f), 0);
        assertEquals(0, Files.size(f));
    }

    /** O_TRUNC empties the file in place: same inode, length 0. */
    @Test
    default void openWithTruncateEmptiesTheSameInode() throws Exception {
        Path f = file(dir().resolve("f"), pattern(5, 5000));
        long ino = Libc.stat(s(f)).ino();
        try (FileChannel ch = FileChannel.open(f, WRITE, TRUNCATE_EXISTING)) {
            assertEquals(0, ch.size());
        }
        Stat st = Libc.stat(s(f));
        assertEquals(0, st.size());
        assertEquals(ino, st.ino());
    }

    /** O_CREAT|O_EXCL on an existing name fails with EEXIST and leaves the file alone. */
    @Test
    default void exclusiveCreateOfAnExistingNameFails() throws Exception {
        Path f = file(dir().resolve("f"), "x");
        assertErrno(Errno.EEXIST, () -> Libc.open(s(f), Libc.O_CREAT | Libc.O_EXCL | Libc.O_RDWR, 0644));
        Files.createSymbolicLink(dir().resolve("dangling"), Path.of("nowhere"));
        assertErrno(Errno.EEXIST, () -> Libc.open(s(dir().resolve("dangling")), Libc.O_CREAT | Libc.O_EXCL | Libc.O_RDWR, 0644));
        assertFalse(Files.exists(dir().resolve("nowhere")));
        assertErrno(Errno.ENOENT, () -> Libc.open(s(dir().resolve("missing")), Libc.O_RDONLY, 0));
        assertErrno(Errno.EISDIR, () -> Libc.open(s(dir()), Libc.O_RDWR, 0));
    }

    /** Reads at and far past the end of a file return no bytes, not an error. */
    @Test
    default void readsAtAndPastTheEndReturnNothing() throws Exception {
        Path f = file(dir().resolve("f"), pattern(6, 1000));
        withFd(f, Libc.O_RDONLY, fd -> {
            assertEquals(0, Libc.pread(fd, 100, 1000).length);
            assertEquals(0, Libc.pread(fd, 100, 1 << 30).length);
            assertEquals(10, Libc.pread(fd, 100, 990).length);
        });
    }

    /** Empty files have length 0, and zero-length writes change nothing. */
    @Test
    default void emptyFilesAndZeroLengthWrites() throws Exception {
        Path f = Files.createFile(dir().resolve("empty"));
        Stat st = Libc.stat(s(f));
        assertEquals(0, st.size());
        assertEquals(0, st.blocks());
        try (FileChannel ch = FileChannel.open(f, WRITE)) {
            assertEquals(0, ch.write(ByteBuffer.allocate(0), 100));
        }
        assertEquals(0, Files.size(f));
    }

    /** Two processes appending with O_APPEND never overwrite each other's records. */
    @Test
    default void twoAppendersNeverOverwriteEachOther() throws Exception {
        Path f = Files.createFile(dir().resolve("log"));
        int records = 400;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] writers = new Thread[2];
        Throwable[] failure = new Throwable[1];
        for (int w = 0; w < 2; w++) {
            char tag = (char) ('A' + w);
            writers[w] = Thread.ofPlatform().start(() -> {
                try (FileChannel ch = FileChannel.open(f, WRITE, APPEND)) {
                    start.await();
                    for (int i = 0; i < records; i++) {
                        String rec = String.format("%c%05d%s\n", tag, i, String.valueOf(tag).repeat(57));
                        ch.write(ByteBuffer.wrap(rec.getBytes()));
                    }
                } catch (Throwable t) {
                    failure[0] = t;
                }
            });
        }
        start.countDown();
        for (Thread t : writers) t.join();
        if (failure[0] != null) throw new AssertionError(failure[0]);
        var lines = Files.readAllLines(f);
        assertEquals(2 * records * 64L, Files.size(f));
        int[] next = new int[2];
        for (String line : lines) {
            int w = line.charAt(0) - 'A';
            assertEquals(String.format("%c%05d%s", line.charAt(0), next[w], String.valueOf(line.charAt(0)).repeat(57)), line);
            next[w]++;
        }
        assertArrayEquals(new int[] {records, records}, next);
    }

    /** fsync and fdatasync succeed and the data is still there afterwards. */
    @Test
    default void fsyncAndFdatasyncKeepTheData() throws Exception {
        Path f = dir().resolve("f");
        byte[] data = pattern(7, 200_000);
        try (FileChannel ch = FileChannel.open(f, CREATE, WRITE)) {
            ch.write(ByteBuffer.wrap(data));
            ch.force(true);
            ch.write(ByteBuffer.wrap(data), data.length);
            ch.force(false);
        }
        try (FileChannel d = FileChannel.open(dir(), READ)) {
            d.force(true); // fsync on the directory: FUSE_FSYNCDIR
        }
        byte[] both = Arrays.copyOf(data, 2 * data.length);
        System.arraycopy(data, 0, both, data.length, data.length);
        assertArrayEquals(both, Files.readAllBytes(f));
    }

    /** An open file that was unlinked stays readable and writable through its descriptor, with a link count of 0. */
    @Test
    default void unlinkedOpenFileStaysReadableAndWritable() throws Exception {
        Path f = file(dir().resolve("f"), "before");
        withFd(f, Libc.O_RDWR, fd -> {
            Files.delete(f);
            assertFalse(Files.exists(f));
            assertEquals(0, Libc.fstat(fd).nlink());
            Libc.pwrite(fd, "after-unlink".getBytes(), 6);
            assertEquals("beforeafter-unlink", new String(Libc.pread(fd, 100, 0)));
            assertEquals(18, Libc.fstat(fd).size());
            assertEquals(0, Libc.listDir(s(dir()), 4096).size());
        });
    }

    /** Renaming over an open file leaves its readers the old content. */
    @Test
    default void renameOverAnOpenFileKeepsTheOldContentForItsReaders() throws Exception {
        Path a = file(dir().resolve("a"), "new content");
        Path b = file(dir().resolve("b"), "old content");
        long inoA = Libc.stat(s(a)).ino();
        withFd(b, Libc.O_RDWR, fd -> {
            Files.move(a, b, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            assertEquals("old content", new String(Libc.pread(fd, 100, 0)));
            assertEquals(0, Libc.fstat(fd).nlink());
            Libc.pwrite(fd, "OLD".getBytes(), 0);
            assertEquals("OLD content", new String(Libc.pread(fd, 100, 0)));
            assertEquals("new content", Files.readString(b));
            assertEquals(inoA, Libc.stat(s(b)).ino());
        });
    }
}
