package dev.ringfuse.uring;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

/** Data operations against real files, each verified byte for byte through java.nio. */
@Timeout(30)
class FileOperationsTest extends RingTest {

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 7 + seed);
        return b;
    }

    MemorySegment native_(byte[] content) {
        MemorySegment s = arena.allocate(content.length, 4096);
        MemorySegment.copy(content, 0, s, JAVA_BYTE, 0, content.length);
        return s;
    }

    MemorySegment iovecs(MemorySegment... bufs) {
        MemorySegment iov = arena.allocate(16L * bufs.length, 8);
        for (int i = 0; i < bufs.length; i++) {
            iov.set(JAVA_LONG, 16L * i, bufs[i].address());
            iov.set(JAVA_LONG, 16L * i + 8, bufs[i].byteSize());
        }
        return iov;
    }

    @Test
    void readAndWriteAtOffsets() throws Exception {
        Path f = dir.resolve("rw");
        byte[] data = pattern(10000, 3);
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        assertEquals(10000, res(ring.nextSqe().prepWrite(fd, native_(data), 100)));
        MemorySegment dst = arena.allocate(10000);
        assertEquals(10000, res(ring.nextSqe().prepRead(fd, dst, 100)));
        assertArrayEquals(data, dst.toArray(JAVA_BYTE));
        assertEquals(0, res(ring.nextSqe().prepRead(fd, dst, 1 << 20)), "EOF reads 0");
        Rings.close(ring, fd);
        byte[] disk = Files.readAllBytes(f);
        assertEquals(10100, disk.length);
        assertArrayEquals(data, Arrays.copyOfRange(disk, 100, 10100));
    }

    @Test
    void vectoredReadAndWrite() throws Exception {
        Path f = dir.resolve("vec");
        byte[] a = pattern(3000, 1), b = pattern(5000, 2);
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        assertEquals(8000, res(ring.nextSqe().prepWritev(fd, iovecs(native_(a), native_(b)), 2, 0)));
        MemorySegment x = arena.allocate(5000), y = arena.allocate(3000);
        assertEquals(8000, res(ring.nextSqe().prepReadv(fd, iovecs(x, y), 2, 0)));
        byte[] disk = Files.readAllBytes(f);
        assertArrayEquals(Arrays.copyOfRange(disk, 0, 5000), x.toArray(JAVA_BYTE));
        assertArrayEquals(Arrays.copyOfRange(disk, 5000, 8000), y.toArray(JAVA_BYTE));
        assertArrayEquals(a, Arrays.copyOfRange(disk, 0, 3000));
        assertArrayEquals(b, Arrays.copyOfRange(disk, 3000, 8000));
        Rings.close(ring, fd);
    }

    @Test
    void fixedBuffersAndFixedFiles() throws Exception {
        Path f = dir.resolve("fixed");
        byte[] data = pattern(8192, 9);
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        MemorySegment wbuf = native_(data);
        MemorySegment rbuf = arena.allocate(8192, 4096);
        try (RegisteredBuffers bufs = ring.registerBuffers(wbuf, rbuf);
             RegisteredFiles files = ring.registerFiles(fd)) {
            assertEquals(2, bufs.count());
            assertEquals(fd, files.fd(0));
            assertEquals(8192, res(ring.nextSqe().prepWriteFixed(0, wbuf, 0, 0).fixedFile()));
            // a sub-range of registered buffer 1
            assertEquals(4096, res(ring.nextSqe().prepReadFixed(0, rbuf.asSlice(4096), 4096, 1).fixedFile()));
            assertArrayEquals(Arrays.copyOfRange(data, 4096, 8192), rbuf.asSlice(4096).toArray(JAVA_BYTE));
        }
        // unregistered: the fixed-file index no longer resolves
        assertEquals(-9, res(ring.nextSqe().prepRead(0, rbuf, 0).fixedFile()));
        assertArrayEquals(data, Files.readAllBytes(f));
        Rings.close(ring, fd);
    }

    @Test
    void registrationsCloseExactlyOnceAndSurviveRingClose() throws Exception {
        MemorySegment buf = arena.allocate(4096, 4096);
        RegisteredBuffers bufs = ring.registerBuffers(buf);
        bufs.close();
        bufs.close();   // second close is a no-op, not a second UNREGISTER (which would fail with ENXIO)
        assertTrue(bufs.isClosed());
        RegisteredBuffers again = ring.registerBuffers(buf);   // the table slot is free again
        ring.close();
        again.close();  // ring already dropped it: nothing to do, no exception
        assertTrue(again.isClosed());
    }

    @Test
    void fsyncAndDatasync() throws Exception {
        Path f = dir.resolve("sync");
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        assertEquals(4, res(ring.nextSqe().prepWrite(fd, native_(new byte[]{1, 2, 3, 4}), 0)));
        assertEquals(0, res(ring.nextSqe().prepFsync(fd, false)));
        assertEquals(0, res(ring.nextSqe().prepFsync(fd, true)));
        Rings.close(ring, fd);
        assertArrayEquals(new byte[]{1, 2, 3, 4}, Files.readAllBytes(f));
    }

    @Test
    void openat2AndStatx() throws Exception {
        Path f = dir.resolve("stat");
        Files.write(f, pattern(12345, 0));
        MemorySegment how = arena.allocate(24, 8);             // open_how{flags=O_RDONLY, mode=0, resolve=0}
        int fd = res(ring.nextSqe().prepOpenat2(IoUring.AT_FDCWD, Rings.cstr(arena, f), how));
        assertTrue(fd >= 0, "openat2 -> " + fd);
        MemorySegment stx = arena.allocate(256, 8);
        int statxSize = 0x200;                                 // STATX_SIZE
        assertEquals(0, res(ring.nextSqe().prepStatx(IoUring.AT_FDCWD, Rings.cstr(arena, f), 0, statxSize, stx)));
        assertEquals(12345L, stx.get(JAVA_LONG, 40));          // statx.stx_size
        MemorySegment dst = arena.allocate(12345);
        assertEquals(12345, res(ring.nextSqe().prepRead(fd, dst, 0)));
        assertArrayEquals(Files.readAllBytes(f), dst.toArray(JAVA_BYTE));
        Rings.close(ring, fd);
    }

    @Test
    void fallocateAndFtruncate() throws Exception {
        Path f = dir.resolve("alloc");
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        assertEquals(0, res(ring.nextSqe().prepFallocate(fd, 0, 0, 1 << 20)));
        assertEquals(1 << 20, Files.size(f));
        Assumptions.assumeTrue(ring.features().supports(Opcode.FTRUNCATE), "no IORING_OP_FTRUNCATE");
        assertEquals(0, res(ring.nextSqe().prepFtruncate(fd, 777)));
        assertEquals(777, Files.size(f));
        Rings.close(ring, fd);
    }
}
