package dev.ringfuse.fs.volume;

import dev.ringfuse.fs.volume.VolumeOptions.Io;
import dev.ringfuse.uring.CompletionHandler;
import dev.ringfuse.uring.IoUring;
import dev.ringfuse.uring.RingClosedException;
import dev.ringfuse.uring.RingConfig;
import dev.ringfuse.uring.UringException;

import java.lang.foreign.MemorySegment;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A private io_uring per calling thread, with the image registered as fixed file 0 ({@link Io#INLINE}).
 *
 * <p>The FUSE thread that received a request submits the image I/O on its own ring and waits for the CQE
 * itself: no hand-over to a loop thread and back, so no wake-ups. For an image whose pages are cached
 * (tmpfs, a warm host page cache) io_uring completes the READ or WRITE during the submitting
 * {@code io_uring_enter}, so the wait costs nothing; only real device I/O blocks the thread. The
 * registered file saves the per-request file lookup and reference count.
 *
 * <p>Each ring is touched by its owning thread only (SINGLE_ISSUER, DEFER_TASKRUN: completions are
 * produced when that thread enters). Rings of all threads are closed together by {@link #close}, after the
 * session has ended and no callback runs any more.
 */
final class CallerRings implements AutoCloseable {
    private static final long USER_DATA = 1;

    private final int imageFd;
    private final Queue<Lane> lanes = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<Lane> mine = new ThreadLocal<>();
    private volatile boolean closed;

    CallerRings(int imageFd) {
        this.imageFd = imageFd;
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
            if (ring.reap(this, 1) != 1) throw new UringException(op, 5 /* EIO */, "no completion");
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
            ring.registerFiles(imageFd);
        } catch (UringException e) {
            ring.close();
            throw e;
        }
        l = new Lane(ring);
        lanes.add(l);
        mine.set(l);
        return l;
    }

    int read(MemorySegment dst, long offset) throws UringException {
        Lane l = lane();
        l.ring.nextSqe().prepRead(0, dst, offset).fixedFile().userData(USER_DATA);
        return l.complete("read");
    }

    int write(MemorySegment src, long offset) throws UringException {
        Lane l = lane();
        l.ring.nextSqe().prepWrite(0, src, offset).fixedFile().userData(USER_DATA);
        return l.complete("write");
    }

    void sync(boolean datasync) throws UringException {
        Lane l = lane();
        l.ring.nextSqe().prepFsync(0, datasync).fixedFile().userData(USER_DATA);
        l.complete("fsync");
    }

    @Override
    public void close() {
        closed = true;
        for (Lane l; (l = lanes.poll()) != null; ) l.ring.close();
    }
}
