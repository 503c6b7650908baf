package dev.ringfuse.fs.passthrough;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A per-thread, page-aligned buffer for O_DIRECT reads and writes of the source: a file system that honours
 * O_DIRECT (ext4, xfs) refuses memory not aligned to its logical block size with EINVAL, and the request and
 * reply buffers of a transport carry the data right after the FUSE headers. Page alignment satisfies every
 * logical block size up to 4 KiB. The copy costs less than the I/O it makes possible.
 */
final class Bounce {
    private static final long ALIGN = 4096;
    private static final ThreadLocal<MemorySegment> BUFFER = new ThreadLocal<>();

    private Bounce() {}

    /** Whether {@code buf} would be refused by an O_DIRECT source. */
    static boolean needed(MemorySegment buf) {
        return (buf.address() & (ALIGN - 1)) != 0;
    }

    /** This thread's buffer, at least {@code size} bytes (grown, never shrunk; freed with the thread). */
    static MemorySegment get(long size) {
        MemorySegment b = BUFFER.get();
        if (b == null || b.byteSize() < size) {
            long cap = Math.max(ALIGN, Long.highestOneBit(Math.max(1, size - 1)) << 1);
            b = Arena.ofAuto().allocate(cap, ALIGN);
            BUFFER.set(b);
        }
        return b;
    }
}
