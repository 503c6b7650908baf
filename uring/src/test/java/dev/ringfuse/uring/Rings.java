package dev.ringfuse.uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Test helpers: run one operation on a ring synchronously and return its CQE. */
final class Rings {
    private Rings() {}

    static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0100, O_TRUNC = 01000, O_DIRECTORY = 0200000;

    /** Submits what is prepared, waits for exactly {@code n} completions and returns them in arrival order. */
    static List<Completion> await(IoUring ring, int n) throws UringException {
        List<Completion> out = new ArrayList<>();
        while (out.size() < n) {
            ring.submitAndWait(n - out.size());
            ring.reap((ud, res, flags) -> out.add(new Completion(ud, res, flags)));
        }
        return out;
    }

    /** Submits what is prepared and returns the single completion. */
    static Completion one(IoUring ring) throws UringException {
        return await(ring, 1).getFirst();
    }

    static MemorySegment cstr(Arena arena, Path p) {
        return arena.allocateFrom(p.toString());
    }

    /** OPENAT through the ring; asserts success. */
    static int open(IoUring ring, Arena arena, Path p, int flags, int mode) throws UringException {
        ring.nextSqe().prepOpenat(IoUring.AT_FDCWD, cstr(arena, p), flags, mode).userData(0x0FE);
        Completion c = one(ring);
        if (c.res() < 0) throw UringException.fromResult("OPENAT", c.res());
        return c.res();
    }

    static void close(IoUring ring, int fd) throws UringException {
        ring.nextSqe().prepClose(fd).userData(0xC105E);
        assertEquals(0, one(ring).res());
    }
}
