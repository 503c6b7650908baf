package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.StatFs;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The filesystem's capacity: bytes of file data (chunks, symlink targets, xattr values) and inodes. Space is
 * reserved before it is used, so running out answers ENOSPC without leaving a half-done change behind.
 */
final class Limits implements ChunkStore.Space {
    /** statfs(2) block size; also what tools see as the fragment size. */
    static final int BLOCK = 4096;
    static final int NAME_MAX = 255;
    static final int PATH_MAX = 4096;

    private final long capacityBytes;
    private final long maxInodes;
    private final AtomicLong usedBytes = new AtomicLong();
    private final AtomicLong usedInodes = new AtomicLong();

    Limits(long capacityBytes, long maxInodes) {
        this.capacityBytes = capacityBytes;
        this.maxInodes = maxInodes;
    }

    @Override
    public void reserve(long bytes) {
        if (!tryAdd(usedBytes, bytes, capacityBytes)) throw new FuseException(Errno.ENOSPC);
    }

    @Override
    public void release(long bytes) {
        usedBytes.addAndGet(-bytes);
    }

    void reserveInode() {
        if (!tryAdd(usedInodes, 1, maxInodes)) throw new FuseException(Errno.ENOSPC);
    }

    void releaseInode() {
        usedInodes.decrementAndGet();
    }

    long usedBytes() { return usedBytes.get(); }

    long usedInodes() { return usedInodes.get(); }

    StatFs statfs() {
        long blocks = capacityBytes / BLOCK;
        long free = Math.max(0, blocks - (usedBytes.get() + BLOCK - 1) / BLOCK);
        long files = maxInodes;
        long ffree = Math.max(0, files - usedInodes.get());
        return new StatFs(blocks, free, free, files, ffree, BLOCK, NAME_MAX, BLOCK);
    }

    private static boolean tryAdd(AtomicLong counter, long delta, long max) {
        while (true) {
            long cur = counter.get();
            if (delta > max - cur) return false;
            if (counter.compareAndSet(cur, cur + delta)) return true;
        }
    }
}
