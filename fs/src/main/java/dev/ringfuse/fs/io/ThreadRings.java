package dev.ringfuse.fs.io;

import dev.ringfuse.uring.CompletionHandler;
import dev.ringfuse.uring.IoUring;
import dev.ringfuse.uring.RingClosedException;
import dev.ringfuse.uring.RingConfig;
import dev.ringfuse.uring.UringException;

import java.lang.foreign.MemorySegment;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A private io_uring per calling thread, for filesystems whose callbacks do file I/O on the transport
 * thread that received the request.
 *
 * <p>The thread submits on its own ring and waits for the CQE itself: no hand-over to a loop thread and
 * back, so no wake-ups. For data in the page cache (tmpfs, a warm host cache) io_uring completes the READ
 * or WRITE during the submitting {@code io_uring_enter}, so the wait costs nothing; only real device I/O
 * blocks the thread. A descriptor given at construction is registered as fixed file 0 of every ring
 * ({@link #REGISTERED}), which saves the per-request file lookup and reference count.
 *
 * <p>Each ring is touched by its owning thread only (SINGLE_ISSUER, DEFER_TASKRUN: completions are
 * produced when that thread enters). The rings of all threads are closed together by {@link #close},
 * after the session has ended and no callback runs any more.
 */
public final class ThreadRings implements AutoCloseable {
    /** Pass as the descriptor to use the one registered at construction. */
    public static final int REGISTERED = -1;
    private static final long USER_DATA = 1;

    private final int registered;
    private final Queue<Lane> lanes = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<Lane> mine = new ThreadLocal<>();
    private volatile boolean closed;

    /** @param registered a descriptor to register in every ring, or -1 for none */
    public ThreadRings(int registered) {
        this.registered = registered;
    }

    /** Whether this kernel lets us set up a ring at all (io_uring may be disabled by sysctl or seccomp). */
    public static String unavailableReason() {
        try (IoUring probe = IoUring.open(RingConfig.builder(2).build())) {
            return probe == null ? "no ring" : null;
        } catch (UringException | RuntimeException e) {
            return e.getMessage();
        }
    }

    /** One thread's ring and the result of its last completion. */
    private static final class Lane implements CompletionHandler {
        final IoUring ring;
        int res;

        Lane(IoUring ring) {
            this.ring = ring;
        }

        @Override
        public void onCompletion(long userData, int res, int flags) {
            this.res = res;
        }

        /** Submits the prepared SQE, waits for its CQE, returns res (≥ 0) or throws with its errno. */
        int complete(String op) throws UringException {
            ring.submitAndWait(1);
            // a signal (JFR's sampler, a profiler, a debugger) can end the wait after the submit: io_uring_enter
            // then returns the count submitted, without the completion, which is still to come
            while (ring.reap(this, 1) != 1) ring.submitAndWait(1);
            if (res < 0) throw UringException.fromResult(op, res);
            return res;
        }
    }

    private Lane lane() throws UringException {
        Lane l = mine.get();
        if (l != null) return l;
        if (closed) throw new RingClosedException("io_uring_setup");
        // Depth 4: one operation at a time per thread; DEFER_TASKRUN keeps completion work on this thread.
        IoUring ring = IoUring.open(RingConfig.builder(4).singleIssuer().deferTaskrun().coopTaskrun().build());
        try {
            if (registered >= 0) ring.registerFiles(registered);
        } catch (UringException e) {
            ring.close();
            throw e;
        }
        l = new Lane(ring);
        lanes.add(l);
        mine.set(l);
        return l;
    }

    private static void target(dev.ringfuse.uring.Sqe sqe, int fd) {
        if (fd == REGISTERED) sqe.fd(0).fixedFile();
    }

    /** pread(2) through the ring: bytes read. */
    public int read(int fd, MemorySegment dst, long offset) throws UringException {
        Lane l = lane();
        var sqe = l.ring.nextSqe().prepRead(fd == REGISTERED ? 0 : fd, dst, offset).userData(USER_DATA);
        target(sqe, fd);
        return l.complete("read");
    }

    /** pwrite(2) through the ring: bytes written. */
    public int write(int fd, MemorySegment src, long offset) throws UringException {
        Lane l = lane();
        var sqe = l.ring.nextSqe().prepWrite(fd == REGISTERED ? 0 : fd, src, offset).userData(USER_DATA);
        target(sqe, fd);
        return l.complete("write");
    }

    /** fsync(2) or fdatasync(2) through the ring. */
    public void sync(int fd, boolean datasync) throws UringException {
        Lane l = lane();
        var sqe = l.ring.nextSqe().prepFsync(fd == REGISTERED ? 0 : fd, datasync).userData(USER_DATA);
        target(sqe, fd);
        l.complete("fsync");
    }

    @Override
    public void close() {
        closed = true;
        for (Lane l; (l = lanes.poll()) != null; ) l.ring.close();
    }
}
