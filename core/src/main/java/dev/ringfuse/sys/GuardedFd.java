package dev.ringfuse.sys;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.StampedLock;

/**
 * A descriptor that other threads may write to (replies completed late, notifications) while its owner
 * may close it. Writes and ioctls hold a read stamp and fail with EBADF once closed; close takes the
 * write lock, so it waits for writes in progress and no write can reach the descriptor number after it
 * has been closed and perhaps reused by an unrelated open(2).
 */
public final class GuardedFd {
    private static final int EBADF = 9;

    private final int fd;
    private final StampedLock lock = new StampedLock();
    private boolean closed;

    public GuardedFd(int fd) {
        this.fd = fd;
    }

    /**
     * The raw number, for threads that the owner stops before {@link #close()} (blocking readers, ring
     * owners that put it into SQEs).
     */
    public int fd() { return fd; }

    /** write(2) of {@code len} bytes; -errno on failure, -EBADF once closed. */
    public long write(MemorySegment buf, long len) {
        long stamp = lock.readLock();
        try {
            return closed ? -EBADF : Libc.write(fd, buf, len);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** ioctl(2) with a pointer argument; EBADF once closed. */
    public int ioctl(long request, MemorySegment arg, String what) throws ErrnoException {
        long stamp = lock.readLock();
        try {
            if (closed) throw new ErrnoException(what, EBADF);
            return Libc.ioctl(fd, request, arg, what);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    public boolean isClosed() {
        long stamp = lock.readLock();
        try {
            return closed;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Closes once; waits for writes in progress. */
    public void close() {
        long stamp = lock.writeLock();
        try {
            if (closed) return;
            closed = true;
            Libc.close(fd);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public String toString() {
        return "fd " + fd;
    }
}
