package dev.ringfuse.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** Namespace operations, each checked through java.nio. */
@Timeout(30)
class PathOperationsTest extends RingTest {
    static final int AT_REMOVEDIR = 0x200;

    MemorySegment p(String name) {
        return Rings.cstr(arena, dir.resolve(name));
    }

    @Test
    void mkdiratAndUnlinkatDirectory() throws Exception {
        assertEquals(0, res(ring.nextSqe().prepMkdirat(IoUring.AT_FDCWD, p("d"), 0755)));
        assertTrue(Files.isDirectory(dir.resolve("d")));
        assertEquals(-17, res(ring.nextSqe().prepMkdirat(IoUring.AT_FDCWD, p("d"), 0755)), "EEXIST");
        assertEquals(0, res(ring.nextSqe().prepUnlinkat(IoUring.AT_FDCWD, p("d"), AT_REMOVEDIR)));
        assertFalse(Files.exists(dir.resolve("d")));
    }

    @Test
    void renameatMovesContent() throws Exception {
        Files.writeString(dir.resolve("a"), "hello");
        assertEquals(0, res(ring.nextSqe().prepRenameat(IoUring.AT_FDCWD, p("a"), IoUring.AT_FDCWD, p("b"), 0)));
        assertFalse(Files.exists(dir.resolve("a")));
        assertEquals("hello", Files.readString(dir.resolve("b")));
    }

    @Test
    void unlinkatFile() throws Exception {
        Files.writeString(dir.resolve("gone"), "x");
        assertEquals(0, res(ring.nextSqe().prepUnlinkat(IoUring.AT_FDCWD, p("gone"), 0)));
        assertFalse(Files.exists(dir.resolve("gone")));
        assertEquals(-2, res(ring.nextSqe().prepUnlinkat(IoUring.AT_FDCWD, p("gone"), 0)), "ENOENT");
    }

    @Test
    void symlinkatPointsAtTarget() throws Exception {
        MemorySegment target = arena.allocateFrom("some/target");
        assertEquals(0, res(ring.nextSqe().prepSymlinkat(target, IoUring.AT_FDCWD, p("link"))));
        assertEquals(Path.of("some/target"), Files.readSymbolicLink(dir.resolve("link")));
    }

    @Test
    void linkatSharesTheInode() throws Exception {
        Files.writeString(dir.resolve("orig"), "shared");
        assertEquals(0, res(ring.nextSqe().prepLinkat(IoUring.AT_FDCWD, p("orig"), IoUring.AT_FDCWD, p("hard"), 0)));
        assertEquals(2, Files.getAttribute(dir.resolve("orig"), "unix:nlink"));
        assertTrue(Files.isSameFile(dir.resolve("orig"), dir.resolve("hard")));
        assertEquals("shared", Files.readString(dir.resolve("hard")));
    }

    @Test
    void openatCreatesWithMode() throws Exception {
        int fd = Rings.open(ring, arena, dir.resolve("new"), Rings.O_WRONLY | Rings.O_CREAT, 0640);
        Rings.close(ring, fd);
        assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("new"))));
    }
}
