package dev.ringfuse.transport.dev;

import dev.ringfuse.Errno;
import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.protocol.Request;
import dev.ringfuse.transport.AdaptiveSpin;
import dev.ringfuse.transport.LatencyHint;
import dev.ringfuse.transport.RequestHandler;
import dev.ringfuse.transport.Transport;
import dev.ringfuse.sys.ErrnoException;
import dev.ringfuse.sys.GuardedFd;
import dev.ringfuse.sys.IoFlusher;
import dev.ringfuse.sys.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The /dev/fuse transport: platform reader threads, each reading on its own clone of the session descriptor
 * and serving each request it reads on the same thread (no hand-over). A request that goes asynchronous keeps
 * its buffer; the reader takes another from the pool (bounded: when every buffer is held by a pending
 * request, readers wait, which is the back-pressure).
 *
 * <p>Readers grow with the load, as libfuse's multi-threaded loop does: two after INIT, and one more whenever
 * a reader takes a request while no other reader is waiting for one, up to {@code maxReaders}. Readers never
 * end before the connection does: a reader blocked in read(2) costs no CPU, and the kernel wakes one waiter
 * per request (an exclusive wait), so idle readers cost nothing but their stacks.
 *
 * <p>Adaptive polling ({@link AdaptiveSpin}): a reader that has just answered a request, while requests keep
 * coming, reads with O_NONBLOCK for a short budget before it blocks again, so the next request finds it
 * awake instead of paying a wake-up. At most {@code maxSpinners} readers poll at a time, and a poller yields
 * its CPU between reads. This transport does not use {@link dev.ringfuse.transport.KeepAwake}: /dev/fuse wakes
 * its readers in turn, wherever they last ran, so a request and its application rarely share a CPU, and
 * keeping the CPUs awake measured slower here (docs/bench/transports.md, "Keeping the CPUs awake"). It asks for
 * a CPU wake-up latency of 0 µs instead ({@link LatencyHint}) while requests come one at a time and close
 * together: idle CPUs then poll instead of halting, and both wake-ups of a request (the reader's, then the
 * application's) land on a polling CPU.
 *
 * <p>Lock order: none is held across a native call. The pool is a lock-free queue plus a counter.
 */
public final class DevFuseTransport implements Transport {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    private static final int EINTR = 4, EAGAIN = 11, ENOENT = 2, ENODEV = 19, ECONNABORTED = 103;
    private static final int F_GETFL = 3, F_SETFL = 4, O_NONBLOCK = 04000;

    private final RequestHandler session;
    private final GuardedFd master;
    private final int maxReaders;
    private final long spinNanos;
    private final int maxSpinners;
    /** Readers started (counted before their thread starts, so growth never overshoots). */
    private final AtomicInteger started = new AtomicInteger();
    /** Readers waiting in (or polling with) read(2): none left means the next request would wait. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger spinners = new AtomicInteger();
    /** Every reader's polling policy, in the order the readers started, for their counters. */
    private final java.util.concurrent.CopyOnWriteArrayList<AdaptiveSpin> spins = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Growth is allowed once the mount exists (clones need it) and only while /dev/fuse carries requests. */
    private volatile boolean growing;
    /** Polling is for request readers; the io_uring transport leaves this one only FORGETs and notifications. */
    private volatile boolean spinAllowed = true;
    private final int bufferSize;
    private final int maxBuffers;
    private final Arena arena = Arena.ofShared();
    private final LinkedBlockingQueue<DevBuffer> free = new LinkedBlockingQueue<>();
    private final AtomicInteger allocated = new AtomicInteger();
    private final List<GuardedFd> clones = new ArrayList<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final Runnable onEnd;
    private volatile boolean closing;
    private final LatencyHint hint = LatencyHint.get();

    /**
     * @param maxReaders the most reader threads
     * @param spinMicros the longest poll for the next request (0: never poll)
     * @param bufferSize bytes per request buffer: at least max_write + 4 KiB
     * @param onEnd      run once when the last reader has stopped (unmount, abort, close)
     */
    public DevFuseTransport(RequestHandler session, GuardedFd master, int maxReaders, int spinMicros, int bufferSize,
                            Runnable onEnd) {
        this.session = session;
        this.master = master;
        this.maxReaders = maxReaders;
        this.spinNanos = spinMicros * 1000L;
        // one poller per two CPUs: a poller holds a CPU while it polls, and the application needs one too
        this.maxSpinners = Integer.getInteger("ringfuse.dev.pollers",
                Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        this.bufferSize = Math.max(bufferSize, Fuse.MIN_READ_BUFFER);
        this.maxBuffers = maxReaders * 4 + 16;
        this.onEnd = onEnd;
    }

    /** Starts the first reader on the session descriptor (it will read INIT). */
    public void startFirst() {
        started.incrementAndGet();
        running.incrementAndGet();
        startReader(master, 0);
    }

    /** The io_uring transport carries the requests: this reader gets only FORGETs and notifications. */
    public void noPolling() {
        spinAllowed = false;
    }

    /** INIT was answered and the mount exists: a second reader, and growth from there. */
    @Override
    public void start() {
        startClones();
    }

    /** Readers end when the connection does (unmount or abort): nothing to ask. */
    @Override
    public void stop() {}

    @Override
    public String name() { return "dev"; }

    @Override
    public String describe() { return started.get() + " threads (up to " + maxReaders + ")"; }

    @Override
    public void describePolling(StringBuilder b) {
        if (!spinAllowed || spinNanos == 0) return; // an io_uring mount's reader of FORGETs, or polling off
        hint.describe(b);
        List<AdaptiveSpin> s = List.copyOf(spins);
        List<String> names = new ArrayList<>();
        for (int r = 0; r < s.size(); r++) names.add("r" + r);
        AdaptiveSpin.describe(b, names, s);
    }

    /** Readers started so far. */
    public int readers() { return started.get(); }

    /** Starts a second reader and lets the pool grow from there (needs the mount made). */
    public void startClones() {
        growing = true;
        grow();
    }

    /** Starts one more reader on a fresh clone, unless there are maxReaders already. */
    private void grow() {
        int i;
        do {
            i = started.get();
            if (i >= maxReaders || closing) return;
        } while (!started.compareAndSet(i, i + 1));
        // a reader joins only while another runs: after the last one ended (and onEnd ran) none starts again
        if (running.getAndUpdate(r -> r == 0 ? 0 : r + 1) == 0) return;
        GuardedFd fd;
        try {
            fd = cloneDevice();
        } catch (ErrnoException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot clone /dev/fuse (" + e.getMessage()
                    + "); reader " + i + " shares the session descriptor, and no more readers start");
            growing = false;
            fd = master;
        }
        try {
            startReader(fd, i);
        } catch (OutOfMemoryError | RuntimeException e) {
            // no thread to be had (a pids limit, memory): the readers there are go on serving (the caller may
            // be one, holding a request it has yet to answer), and none more is tried
            growing = false;
            started.decrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "cannot start /dev/fuse reader " + i + " (" + e
                    + "); no more readers start");
            readerEnded();
        }
    }

    private GuardedFd cloneDevice() throws ErrnoException {
        int fd = Libc.open("/dev/fuse", Libc.O_RDWR | Libc.O_CLOEXEC, 0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment old = a.allocate(ValueLayout.JAVA_INT);
            old.set(ValueLayout.JAVA_INT, 0, master.fd());
            Libc.ioctl(fd, Fuse.DEV_IOC_CLONE, old, "FUSE_DEV_IOC_CLONE");
        } catch (ErrnoException e) {
            Libc.close(fd);
            throw e;
        }
        GuardedFd g = new GuardedFd(fd);
        synchronized (clones) {
            clones.add(g);
        }
        return g;
    }

    /** Starts a reader already counted in {@code running}. */
    private void startReader(GuardedFd fd, int index) {
        Thread.ofPlatform().daemon().name("ringfuse-dev-" + index).start(() -> readLoop(fd));
    }

    /** A reader counted in {@code running} stopped (or never started): the last one ends the transport. */
    private void readerEnded() {
        if (running.decrementAndGet() == 0) {
            ended.countDown();
            onEnd.run();
        }
    }

    private void readLoop(GuardedFd fd) {
        try {
            if (session.ioFlusher()) IoFlusher.markServingThread();
            AdaptiveSpin spin = new AdaptiveSpin(spinNanos);
            spins.add(spin);
            if (AdaptiveSpin.MOUNT_SCOPE) spin.shareWith(spins);
            // a reader polls only on a descriptor of its own: O_NONBLOCK belongs to the open file, and the
            // session descriptor is shared whenever there may be more than one reader (clone failures)
            Poller poller = fd != master || maxReaders == 1 ? new Poller(fd.fd()) : null;
            DevBuffer b = acquire();
            // two clock reads per request: when it was read (b.received) and when serving it ended (now), which
            // also starts the next poll
            long now = System.nanoTime();
            while (b != null && !closing) {
                waiting.incrementAndGet();
                long n = next(fd.fd(), b, spin, poller, now);
                boolean alone = waiting.decrementAndGet() == 0;
                if (n < 0) {
                    int e = (int) -n;
                    now = b.received;
                    if (e == EINTR || e == EAGAIN || e == ENOENT) continue;
                    if (e != ENODEV && e != ECONNABORTED) {
                        LOG.log(System.Logger.Level.ERROR, "read(/dev/fuse): " + Errno.describe(e) + "; reader stops");
                    }
                    release(b);
                    break;
                }
                b.fd = fd;
                long t0 = b.received;
                spin.arrived(t0);
                // the latency request is for streams whose requests come one at a time (another reader is
                // waiting): where every reader is busy, no request waits for a wake-up of a reader. Not with
                // polling off, nor on an io_uring mount's reader of FORGETs (spinAllowed false)
                if (!alone && spinNanos > 0 && spinAllowed) hint.arrived(t0);
                // no other reader waits: start one before serving, since this request may block its reader
                // (once per reader ever started, so the cost of a thread start is not paid per request)
                if (alone && growing) grow();
                boolean pending = serve(b, (int) n);
                now = System.nanoTime();
                spin.served(now - t0);
                if (pending) b = acquire();
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "reader " + Thread.currentThread().getName() + " failed", t);
        } finally {
            readerEnded();
        }
    }

    /**
     * Reads the next request into {@code b}: polls with O_NONBLOCK for the budget the spin policy gives (if a
     * polling slot is free), then blocks. Returns the byte count or -errno, and sets {@code b.received}.
     *
     * @param now the time the previous request's serving ended (the clock is read once per request there)
     */
    private long next(int fd, DevBuffer b, AdaptiveSpin spin, Poller poller, long now) {
        long budget = spinAllowed && poller != null ? spin.budget(now) : 0;
        if (budget > 0 && spinners.incrementAndGet() <= maxSpinners) {
            try {
                if (poller.nonblocking(true)) {
                    long start = now;
                    long n;
                    boolean waited = false;
                    do {
                        n = Libc.read(fd, b.seg, bufferSize);
                        now = System.nanoTime();
                        if (n != -EAGAIN) {
                            // a request that was already there took no polling (AdaptiveSpin: 0 ns, no catch)
                            // and only a request is a catch (not EINTR, ENOENT or the end of the connection)
                            spin.polled(waited ? now - start : 0, waited && n > 0);
                            b.received = now;
                            return n;
                        }
                        waited = true;
                        // a yield, not a pause: a poller on the CPU of the application it has just answered
                        // would otherwise keep it from running until the budget ends (15k instead of 186k
                        // QD1 reads/s with two busy loops keeping the CPUs awake, docs/bench/transports.md)
                        Thread.yield();
                    } while (now - start < budget && !closing);
                    spin.polled(now - start, false);
                }
            } finally {
                spinners.decrementAndGet();
            }
        } else if (budget > 0) {
            spinners.decrementAndGet();
        }
        if (poller != null) poller.nonblocking(false);
        long n = Libc.read(fd, b.seg, bufferSize);
        b.received = System.nanoTime();
        return n;
    }

    /** A reader's descriptor flags: O_NONBLOCK while it polls, cleared before it blocks. */
    private static final class Poller {
        private final int fd;
        private int flags = -1;
        private boolean nonblocking;
        private boolean broken;

        Poller(int fd) {
            this.fd = fd;
        }

        /** Sets or clears O_NONBLOCK (one fcntl, only on a change); false if the descriptor refuses. */
        boolean nonblocking(boolean on) {
            if (on == nonblocking) return true;
            if (broken) return false;
            try {
                if (flags < 0) flags = Libc.fcntl(fd, F_GETFL, 0) & ~O_NONBLOCK;
                Libc.fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags);
                nonblocking = on;
                return true;
            } catch (ErrnoException e) {
                broken = true;
                LOG.log(System.Logger.Level.DEBUG, "no polling on /dev/fuse: fcntl " + e.getMessage());
                return false;
            }
        }
    }

    /** Decodes and hands over one request; returns true if the buffer now belongs to a pending request. */
    private boolean serve(DevBuffer b, int n) {
        Request r = session.decoder().decodeDevice(b.seg, n);
        if (r == null) {
            LOG.log(System.Logger.Level.WARNING, "short read of " + n + " bytes from /dev/fuse ignored");
            return false;
        }
        return session.handle(r, b);
    }

    private DevBuffer acquire() throws InterruptedException {
        DevBuffer b = free.poll();
        if (b != null) return b;
        if (allocated.getAndIncrement() < maxBuffers) {
            return new DevBuffer(arena.allocate(bufferSize, 4096), this);
        }
        allocated.decrementAndGet();
        while (!closing) {
            b = free.poll(100, TimeUnit.MILLISECONDS);
            if (b != null) return b;
        }
        return null;
    }

    void release(DevBuffer b) {
        free.offer(b);
    }

    void writeFailed(long unique, int errno) {
        // ENOENT: the request was interrupted or aborted meanwhile; ENODEV: the connection is gone
        if (errno != ENOENT && errno != ENODEV) {
            LOG.log(System.Logger.Level.WARNING, "reply to unique " + unique + " rejected: " + Errno.describe(errno));
        }
    }

    /** Waits for every reader to stop; returns whether they did. */
    @Override
    public boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException {
        return ended.await(timeout, unit);
    }

    /** True once every reader has stopped. */
    @Override
    public boolean isEnded() {
        return ended.getCount() == 0;
    }

    /**
     * Closes the clone descriptors and frees the buffers. Call after the readers have stopped; if some are
     * still blocked in read(2), their descriptors and buffers are left open (closing them could hand the
     * number to an unrelated open(2) under a reader that reads again) and the leak is logged.
     */
    @Override
    public void close() {
        closing = true;
        boolean stopped = isEnded();
        if (!stopped) {
            LOG.log(System.Logger.Level.WARNING, "/dev/fuse readers still blocked; their descriptors stay open");
            return;
        }
        synchronized (clones) {
            clones.forEach(GuardedFd::close);
            clones.clear();
        }
        try {
            arena.close();
        } catch (IllegalStateException inUse) {
            LOG.log(System.Logger.Level.DEBUG, "transport buffers still in use; left to the GC");
        }
    }
}
