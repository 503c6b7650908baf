package dev.ringfuse.uring;


import dev.ringfuse.uring.internal.SubmissionQueue;
import dev.ringfuse.uring.internal.Syscalls;
import dev.ringfuse.uring.internal.Abi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The kernel objects behind one ring: its fd and the (one to three) shared mappings, created by
 * io_uring_setup + mmap and released exactly once by {@link #close()}.
 *
 * <p>All mapped segments are scoped to a shared {@link Arena} that is closed before the munmap, so a stale
 * access after close raises {@link IllegalStateException} instead of touching unmapped memory.
 */
final class RingMemory {
    private final Arena arena;
    private final int fd;
    private final int featureBits;
    private final long[] maps;     // address, length pairs to munmap
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final MemorySegment errno;
    private boolean closed;

    private RingMemory(Arena arena, int fd, int featureBits, long[] maps, SubmissionQueue sq, CompletionQueue cq,
                       MemorySegment errno) {
        this.arena = arena;
        this.fd = fd;
        this.featureBits = featureBits;
        this.maps = maps;
        this.sq = sq;
        this.cq = cq;
        this.errno = errno;
    }

    /** io_uring_setup followed by the mmaps; on any failure everything acquired so far is released. */
    public static RingMemory setup(RingConfig config) throws UringException {
        Arena arena = Arena.ofShared();
        MemorySegment errno = Syscalls.newErrnoState(arena);
        MemorySegment params = arena.allocate(Abi.IO_URING_PARAMS);
        params.set(JAVA_INT, Abi.PARAMS_FLAGS, config.setupFlags());
        params.set(JAVA_INT, Abi.PARAMS_CQ_ENTRIES, config.cqEntries());
        params.set(JAVA_INT, Abi.PARAMS_SQ_THREAD_IDLE, config.sqThreadIdle());
        int fd = Syscalls.ioUringSetup(errno, config.sqEntries(), params);
        if (fd < 0) {
            arena.close();
            throw new UringException("io_uring_setup", -fd, "flags=0x" + Integer.toHexString(config.setupFlags()));
        }
        long[] maps = new long[6];
        try {
            int features = params.get(JAVA_INT, Abi.PARAMS_FEATURES);
            int sqEntries = params.get(JAVA_INT, Abi.PARAMS_SQ_ENTRIES);
            int cqEntries = params.get(JAVA_INT, Abi.PARAMS_CQ_ENTRIES);
            MemorySegment sqOff = params.asSlice(Abi.PARAMS_SQ_OFF, Abi.IO_SQRING_OFFSETS);
            MemorySegment cqOff = params.asSlice(Abi.PARAMS_CQ_OFF, Abi.IO_CQRING_OFFSETS);
            long sqeSize = config.sqe128() ? Abi.SQE128_SIZE : Abi.SQE_SIZE;
            long cqeSize = config.cqe32() ? Abi.CQE32_SIZE : Abi.CQE_SIZE;
            boolean noSqArray = (config.setupFlags() & Abi.IORING_SETUP_NO_SQARRAY) != 0;
            long sqRingSize = noSqArray ? sqOff.get(JAVA_INT, Abi.SQOFF_DROPPED) + 4L
                    : sqOff.get(JAVA_INT, Abi.SQOFF_ARRAY) + 4L * sqEntries;
            long cqRingSize = cqOff.get(JAVA_INT, Abi.CQOFF_CQES) + cqeSize * cqEntries;
            MemorySegment sqRing, cqRing;
            if ((features & Abi.IORING_FEAT_SINGLE_MMAP) != 0) {
                // One mapping serves both rings; it must be large enough for either.
                long size = Math.max(sqRingSize, cqRingSize);
                sqRing = cqRing = map(arena, errno, fd, size, Abi.IORING_OFF_SQ_RING, maps, 0);
            } else {
                sqRing = map(arena, errno, fd, sqRingSize, Abi.IORING_OFF_SQ_RING, maps, 0);
                cqRing = map(arena, errno, fd, cqRingSize, Abi.IORING_OFF_CQ_RING, maps, 2);
            }
            MemorySegment sqes = map(arena, errno, fd, sqeSize * sqEntries, Abi.IORING_OFF_SQES, maps, 4);
            SubmissionQueue sq = new SubmissionQueue(sqRing, sqOff, sqes, sqeSize, !noSqArray);
            CompletionQueue cq = new CompletionQueue(cqRing, cqOff, config.cqe32());
            return new RingMemory(arena, fd, features, maps, sq, cq, errno);
        } catch (UringException | RuntimeException e) {
            release(arena, fd, maps);
            throw e;
        }
    }

    private static MemorySegment map(Arena arena, MemorySegment errno, int fd, long size, long offset, long[] maps,
                                     int slot) throws UringException {
        long addr = Syscalls.mmapShared(errno, fd, size, offset);
        if (addr < 0) throw new UringException("mmap", (int) -addr, "io_uring offset 0x" + Long.toHexString(offset));
        maps[slot] = addr;
        maps[slot + 1] = size;
        return MemorySegment.ofAddress(addr).reinterpret(size, arena, null);
    }

    private static void release(Arena arena, int fd, long[] maps) {
        arena.close();                      // first: segments become inaccessible
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment errno = Syscalls.newErrnoState(tmp);
            for (int i = 0; i < maps.length; i += 2) {
                if (maps[i] != 0) Syscalls.munmap(errno, maps[i], maps[i + 1]);
            }
            Syscalls.close(errno, fd);
        }
    }

    public Arena arena() { return arena; }

    public int fd() { return fd; }

    public int featureBits() { return featureBits; }

    public SubmissionQueue submissionQueue() { return sq; }

    public CompletionQueue completionQueue() { return cq; }

    /** The owner thread's errno capture segment. */
    public MemorySegment errnoState() { return errno; }

    /** Unmaps and closes the fd; idempotent (callers guard with their own once-flag too). */
    public synchronized void close() {
        if (closed) return;
        closed = true;
        release(arena, fd, maps);
    }
}
