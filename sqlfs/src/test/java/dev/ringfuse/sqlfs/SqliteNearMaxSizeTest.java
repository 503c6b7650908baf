package dev.ringfuse.sqlfs;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.internal.Check;
import dev.ringfuse.testkit.internal.Libc;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Offsets up to the largest file size, 2^63-1 (FUSE's and tmpfs's s_maxbytes, MAX_LFS_FILESIZE): the last chunk
 * of such a file ends at 2^63, one past a long, which {@code start + chunk} and round-ups like
 * {@code (n + chunk - 1) / chunk} wrapped (EIO on the write, every chunk deleted by a truncate or punch there).
 * The answers are tmpfs's (python on /dev/shm, kernel 6.18): a write ending at 2^63-1 succeeds, one past it is
 * refused by the kernel (EINVAL: pos + count wraps), fallocate past it is EFBIG. For SEEK_DATA/SEEK_HOLE in the
 * last page tmpfs itself wraps (ENXIO, or -2^63 for SEEK_HOLE), so there the answers are those tmpfs gives
 * further down: the data's offset, and the size as the hole. Bytes are checked through O_DIRECT too, which
 * reads the database rather than the page cache (SQLite mounts keep it across opens).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SqliteNearMaxSizeTest {
    @RegisterExtension
    static final FuseMount MOUNT = SqliteScenarios.sqlite(TransportKind.DEV).freshDirectories(true)
            .timeout(Duration.ofSeconds(90));

    static final long MAX = Long.MAX_VALUE; // the largest size; its last byte is at MAX - 1
    static final byte[] HEAD = {'h', 'e', 'a', 'd'};
    static final int PUNCH = Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, ZERO_RANGE = 16;

    private static int chunk() {
        return ((SqlFs) MOUNT.fileSystem()).chunkSize();
    }

    /** The first offset of the last chunk a file can have (2^63 - chunk). */
    private static long lastChunk() {
        return MAX - chunk() + 1;
    }

    private static FileChannel open(Path f) throws IOException {
        return FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    private static void write(FileChannel ch, long pos, byte[] b) throws IOException {
        assertEquals(b.length, ch.write(ByteBuffer.wrap(b), pos), "write of " + b.length + " at " + pos);
    }

    /** What a reader sees, and what the database holds (O_DIRECT skips the page cache). */
    private static void assertBytes(FileChannel ch, Path f, long pos, byte[] expect) throws Exception {
        ByteBuffer buf = ByteBuffer.allocate(expect.length);
        while (buf.hasRemaining() && ch.read(buf, pos + buf.position()) > 0) {}
        assertArrayEquals(expect, Arrays.copyOf(buf.array(), buf.position()), "read at " + pos);
        int fd = Libc.open(f.toString(), Libc.O_RDONLY | Libc.O_DIRECT, 0);
        try {
            assertArrayEquals(expect, Libc.pread(fd, expect.length, pos), "O_DIRECT read at " + pos);
        } finally {
            Libc.close(fd);
        }
    }

    private static byte[] filled(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }

    @Test
    void aWriteEndingAtTheLargestSizeSucceeds() throws Exception {
        Path f = MOUNT.testDir().resolve("f");
        try (FileChannel ch = open(f)) {
            write(ch, 0, HEAD);
            write(ch, MAX - 1, new byte[] {'x'}); // was EIO: IndexOutOfBoundsException in Chunks.write
            assertEquals(MAX, ch.size());
            assertBytes(ch, f, MAX - 1, new byte[] {'x'});
            write(ch, MAX - 2, new byte[] {'a', 'b'});
            assertBytes(ch, f, MAX - 3, new byte[] {0, 'a', 'b'});
            // the kernel refuses these before sqlfs sees them, as on tmpfs: pos + count passes 2^63-1
            IOException past = assertThrows(IOException.class, () -> ch.write(ByteBuffer.wrap(new byte[] {'y'}), MAX));
            assertTrue(String.valueOf(past.getMessage()).contains("Invalid argument"), String.valueOf(past));
            assertThrows(IOException.class, () -> ch.write(ByteBuffer.wrap(new byte[] {'y', 'z'}), MAX - 1));
            assertEquals(MAX, ch.size());
            assertBytes(ch, f, 0, HEAD);
        }
    }

    @Test
    void writesAcrossTheLastChunksKeepEveryByte() throws Exception {
        Path f = MOUNT.testDir().resolve("f");
        int c = chunk();
        long last = lastChunk();
        try (FileChannel ch = open(f)) {
            byte[] whole = filled(c - 1, 'L'); // the whole last chunk: its last byte is the file's last
            write(ch, last, whole);
            byte[] across = filled(c + 10, 'A'); // a partial, a whole and the start of the last chunk
            write(ch, last - c - 5, across);
            byte[] top = filled(10, 'T');
            write(ch, MAX - 10, top);
            assertEquals(MAX, ch.size());
            assertBytes(ch, f, last - c - 6, new byte[] {0, 'A'});
            assertBytes(ch, f, last - c - 5, across);
            assertBytes(ch, f, last + 5, filled(c - 16, 'L'));
            assertBytes(ch, f, MAX - 11, new byte[] {'L', 'T', 'T', 'T', 'T', 'T', 'T', 'T', 'T', 'T', 'T'});
        }
    }

    @Test
    void truncatingWithinTheLastChunkKeepsTheRest() throws Exception {
        Path f = MOUNT.testDir().resolve("f");
        try (FileChannel ch = open(f)) {
            write(ch, 0, HEAD);
            write(ch, lastChunk() - 1, new byte[] {'p'}); // the last byte of the chunk before the last
            Libc.truncate(f.toString(), MAX);
            Libc.truncate(f.toString(), MAX - 1); // every chunk was deleted: (size + chunk - 1) wrapped
            assertEquals(MAX - 1, ch.size());
            Libc.truncate(f.toString(), MAX);
            assertEquals(MAX, ch.size());
            assertBytes(ch, f, 0, HEAD);
            assertBytes(ch, f, lastChunk() - 1, new byte[] {'p', 0});
            write(ch, MAX - 3, new byte[] {'a', 'b', 'c'});
            Libc.truncate(f.toString(), MAX - 1); // cuts the stored 'c'; growing back reads a zero there
            Libc.truncate(f.toString(), MAX);
            assertBytes(ch, f, MAX - 4, new byte[] {0, 'a', 'b', 0});
            Libc.truncate(f.toString(), lastChunk() + 1);
            Libc.truncate(f.toString(), MAX);
            assertBytes(ch, f, lastChunk() - 1, new byte[] {'p', 0});
            assertBytes(ch, f, MAX - 4, new byte[4]);
            assertBytes(ch, f, 0, HEAD);
        }
    }

    @Test
    void fallocateNearTheTopKeepsTheRest() throws Exception {
        Path f = MOUNT.testDir().resolve("f");
        try (FileChannel ch = open(f)) {
            write(ch, 0, HEAD);
            write(ch, lastChunk() - 3, filled(3, 'p')); // the end of the chunk before the last
            Libc.truncate(f.toString(), MAX);
            // every chunk below the last was deleted: (off + chunk - 1) / chunk wrapped below 0
            withFd(f, fd -> Libc.fallocate(fd, PUNCH, MAX - 21, 10));
            assertBytes(ch, f, 0, HEAD);
            assertBytes(ch, f, lastChunk() - 3, filled(3, 'p'));
            write(ch, MAX - 30, filled(29, 'q'));
            withFd(f, fd -> Libc.fallocate(fd, PUNCH, MAX - 21, 10));
            byte[] expect = filled(29, 'q');
            Arrays.fill(expect, 9, 19, (byte) 0);
            assertBytes(ch, f, MAX - 30, expect);
            withFd(f, fd -> Libc.fallocate(fd, ZERO_RANGE, lastChunk() - 2, 4)); // across the last two chunks
            assertBytes(ch, f, lastChunk() - 3, new byte[] {'p', 0, 0, 0, 0, 0});
            withFd(f, fd -> Libc.fallocate(fd, 0, MAX - 10, 10)); // ends at the largest size: allowed
            assertBytes(ch, f, MAX - 30, expect);
            withFd(f, fd -> assertErrno(Errno.EFBIG, () -> Libc.fallocate(fd, 0, MAX - 10, 11)));
            assertEquals(MAX, ch.size());
            assertBytes(ch, f, 0, HEAD);
        }
    }

    @Test
    void seekDataAndSeekHoleNearTheTop() throws Exception {
        Path f = MOUNT.testDir().resolve("f");
        long last = lastChunk();
        try (FileChannel ch = open(f)) {
            write(ch, 0, HEAD);
            write(ch, last - 1, new byte[] {'p'}); // chunk before the last stored whole (zeros, then 'p')
            write(ch, MAX - 1, new byte[] {'x'});
            withFd(f, fd -> {
                assertEquals(last - chunk(), Libc.lseek(fd, HEAD.length, Libc.SEEK_DATA));
                assertEquals(MAX, Libc.lseek(fd, last - chunk(), Libc.SEEK_HOLE)); // the data runs on to the end
                assertEquals(last, Libc.lseek(fd, last, Libc.SEEK_DATA));
                assertEquals(MAX - 1, Libc.lseek(fd, MAX - 1, Libc.SEEK_DATA));
                assertEquals(MAX, Libc.lseek(fd, MAX - 1, Libc.SEEK_HOLE));
                assertErrno(Errno.ENXIO, () -> Libc.lseek(fd, MAX, Libc.SEEK_DATA));
                assertErrno(Errno.ENXIO, () -> Libc.lseek(fd, MAX, Libc.SEEK_HOLE));
            });
        }
    }

    private static void withFd(Path f, Check.FdBody body) throws Exception {
        Check.withFd(f, Libc.O_RDWR, body);
    }
}
