package dev.ringfuse.uring;


import dev.ringfuse.uring.internal.Syscalls;
import dev.ringfuse.uring.internal.Errno;
import dev.ringfuse.uring.internal.Abi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One ring driven by one platform thread. Any thread may {@link #execute} a {@link Request}: it goes through a
 * lock-free MPSC queue, and the loop is woken through an eventfd that always has a READ pending in the ring.
 *
 * <p>Wake-up protocol: before blocking in io_uring_enter the loop sets {@code sleeping} and re-checks the queue; a
 * producer that enqueues and then sees {@code sleeping} clears it (only one producer wins the CAS) and writes the
 * eventfd. Either the loop sees the request in its re-check, or the producer sees the flag: no lost wake-ups, and
 * no syscall per request while the loop is busy.
 */
final class EventLoop implements Runnable {
    private static final System.Logger LOG = System.getLogger(EventLoop.class.getName());
    private static final long WAKE = Long.MIN_VALUE | 1;      // loop-internal user_data (negative: never a slot)
    private static final long CANCEL = Long.MIN_VALUE | 2;
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(2);

    private final RingConfig config;
    private final ConcurrentLinkedQueue<Request> incoming = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean closing;
    private volatile boolean terminated;
    private volatile Throwable startFailure;
    private volatile int eventFd = -1;
    private final MemorySegment wakeWord;     // 8 bytes producers write to the eventfd
    // Producers currently inside wake(): the eventfd is closed only when none are, so a write can never hit a
    // closed (and possibly reused) descriptor.
    private final java.util.concurrent.atomic.AtomicInteger wakers = new java.util.concurrent.atomic.AtomicInteger();
    private final Arena arena = Arena.ofShared();
    private volatile Features features;
    private SlotTable slots;
    private IoUring ring;

    public EventLoop(RingConfig config) {
        this.config = config;
        this.wakeWord = Arena.ofAuto().allocate(8, 8);
        wakeWord.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 1L);
    }

    /** Blocks until the loop thread has set up its ring; rethrows a setup failure. */
    public void awaitStarted() throws UringException {
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UringException("io_uring_setup", Errno.EINTR, "interrupted while starting the loop");
        }
        if (startFailure instanceof UringException u) throw u;
        if (startFailure != null) throw new IllegalStateException(startFailure);
    }

    /** Hands {@code r} to the loop; after close it is failed with RingClosedException instead. */
    public void execute(Request r) {
        incoming.offer(r);
        if (terminated) {
            failQueued();                     // the loop is gone: nobody else will ever drain it
        } else if (sleeping.get() && sleeping.compareAndSet(true, false)) {
            wake();
        }
    }

    private void wake() {
        wakers.incrementAndGet();
        try {
            if (!terminated && eventFd >= 0) Syscalls.writeNoErrno(eventFd, wakeWord, 8);
        } finally {
            wakers.decrementAndGet();
        }
    }

    /** Asks the loop to stop and waits for it (unless called from the loop itself). */
    public void close() {
        closing = true;
        wake();
        if (Thread.currentThread() != owner) {
            try {
                finished.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isClosed() {
        return closing;
    }

    private volatile Thread owner;

    @Override
    public void run() {
        owner = Thread.currentThread();
        MemorySegment wakeBuf = arena.allocate(8, 8);
        try {
            try {
                ring = IoUring.open(config);
                features = ring.features();
                slots = new SlotTable(Math.max(1, ring.cqEntries() - 1));   // the wake-up read takes one CQE
                int efd = Syscalls.eventfd(Syscalls.newErrnoState(arena));
                if (efd < 0) throw new UringException("eventfd", -efd);
                eventFd = efd;
                armWake(wakeBuf);
            } catch (Throwable t) {
                startFailure = t;
                closing = true;
                return;
            } finally {
                started.countDown();
            }
            loop(wakeBuf);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "io_uring event loop failed; failing its operations", t);
        } finally {
            shutdown();
            finished.countDown();
        }
    }

    private void armWake(MemorySegment wakeBuf) throws UringException {
        ring.nextSqe().prepRead(eventFd, wakeBuf, -1).userData(WAKE);
    }

    private void loop(MemorySegment wakeBuf) throws UringException {
        boolean[] rearm = new boolean[1];
        dev.ringfuse.uring.CompletionHandler handler = (userData, res, flags) -> {
            if (userData == WAKE) {
                rearm[0] = true;
            } else {
                Request r = slots.take(userData);
                if (r != null) complete(r, res);
            }
        };
        while (!closing) {
            takeIncoming();
            if (slots.hasFree() && !incoming.isEmpty()) {
                ring.submit();
            } else {
                if (slots.hasFree()) {
                    sleeping.set(true);
                    if (!incoming.isEmpty() || closing) {
                        sleeping.set(false);
                        ring.submit();
                        reapInto(handler, rearm, wakeBuf);
                        continue;
                    }
                }
                ring.submitAndWait(1);
                sleeping.set(false);
            }
            reapInto(handler, rearm, wakeBuf);
        }
    }

    private void reapInto(dev.ringfuse.uring.CompletionHandler handler, boolean[] rearm, MemorySegment wakeBuf)
            throws UringException {
        ring.reap(handler);
        if (rearm[0]) {
            rearm[0] = false;
            armWake(wakeBuf);
        }
    }

    private void takeIncoming() throws UringException {
        Request r;
        while (slots.hasFree() && ring.sqSpace() > 0 && (r = incoming.poll()) != null) {
            if (r instanceof RingTask<?> t) { // registration and the like: on this thread, no SQE
                t.runOn(ring);
                continue;
            }
            long userData = slots.put(r);
            r.prepare(ring.nextSqe().userData(userData));
        }
    }

    private static void complete(Request r, int res) {
        try {
            if (res == -Errno.ECANCELED) r.cancelClosed();
            else r.complete(res);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "completion callback threw", t);
        }
    }

    /** Fails queued work, cancels in-flight work and waits (bounded) for the kernel to let go of buffers. */
    private void shutdown() {
        terminated = true;
        failQueued();
        if (ring == null) {
            arena.close();
            return;
        }
        try {
            if (slots.inFlight() > 0) {
                ring.nextSqe().prepCancel(0, Abi.IORING_ASYNC_CANCEL_ANY).userData(CANCEL);
                long deadline = System.nanoTime() + SHUTDOWN_GRACE.toNanos();
                while (slots.inFlight() > 0 && System.nanoTime() < deadline) {
                    ring.submitAndWait(1, Duration.ofMillis(50));
                    ring.reap((ud, res, fl) -> {
                        Request r = slots.take(ud);
                        if (r != null) complete(r, res);
                    });
                }
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "error while cancelling in-flight io_uring operations", t);
        }
        slots.drain(Request::cancelClosed);
        ring.close();
        while (wakers.get() > 0) Thread.onSpinWait();
        if (eventFd >= 0) {
            try (Arena tmp = Arena.ofConfined()) {
                Syscalls.close(Syscalls.newErrnoState(tmp), eventFd);
            }
        }
        arena.close();
    }

    private void failQueued() {
        Request r;
        while ((r = incoming.poll()) != null) r.cancelClosed();
    }

    /** What the loop's ring supports; valid after {@link #awaitStarted()} returned. */
    public Features features() {
        return features;
    }
}
