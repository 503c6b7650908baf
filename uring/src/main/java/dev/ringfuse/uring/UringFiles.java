package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Blocking file I/O for (virtual) threads over a few shared rings.
 *
 * <p>Each call hands a request to one of the {@link UringLoop}s (chosen by the calling thread's id, so a thread
 * keeps using the same ring) and parks until its completion. A parked virtual thread releases its carrier, so
 * thousands of virtual threads can have I/O in flight on two rings; the native calls happen only on the loops'
 * platform threads.
 */
public final class UringFiles implements AutoCloseable {
    private final UringLoop[] loops;

    private UringFiles(UringLoop[] loops) {
        this.loops = loops;
    }

    /** {@code rings} loops with {@code entries} SQEs each and the default single-owner setup flags. */
    public static UringFiles create(int rings, int entries) throws UringException {
        UringLoop[] loops = new UringLoop[rings];
        try {
            for (int i = 0; i < rings; i++) loops[i] = UringLoop.start(entries);
        } catch (UringException | RuntimeException e) {
            for (UringLoop l : loops) if (l != null) l.close();
            throw e;
        }
        return new UringFiles(loops);
    }

    /** Opens {@code path} (OPENAT on a ring) for blocking use. */
    public BlockingFile open(Path path, int flags, int mode) throws UringException {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment cpath = arena.allocateFrom(path.toString());
            int fd = call(new ParkingRequest(Opcode.OPENAT, IoUring.AT_FDCWD, cpath.address(), mode, 0,
                    flags | OpenFlags.O_CLOEXEC, cpath));
            return new BlockingFile(this, fd, path);
        }
    }

    /** Runs {@code r} on the calling thread's ring and waits for its result (≥ 0), throwing on -errno. */
    int call(ParkingRequest r) throws UringException {
        loopFor(Thread.currentThread()).execute(r);
        return r.await();
    }

    private UringLoop loopFor(Thread t) {
        return loops[(int) Math.floorMod(t.threadId(), (long) loops.length)];
    }

    /** Number of rings. */
    public int rings() {
        return loops.length;
    }

    /** Stops all loops; blocked callers get {@link RingClosedException}. */
    @Override
    public void close() {
        for (UringLoop l : loops) l.close();
    }

    static UringException closedFile(Request r) {
        return new UringException(r.operation(), Errno.EBADF, "file closed");
    }
}
