package dev.ringfuse.transport.dev;

import dev.ringfuse.Errno;
import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.protocol.Request;
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
 * The /dev/fuse transport: {@code threads} platform threads, each blocking in read(2) on its own clone of
 * the session descriptor, handing each request to the session on the same thread. A request that goes
 * asynchronous keeps its buffer; the reader takes another from the pool (bounded: when every buffer is
 * held by a pending request, readers wait, which is the back-pressure).
 *
 * <p>Lock order: none is held across a native call. The pool is a lock-free queue plus a counter.
 */
public final class DevFuseTransport implements Transport {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    private static final int EINTR = 4, EAGAIN = 11, ENOENT = 2, ENODEV = 19, ECONNABORTED = 103;

    private final RequestHandler session;
    private final GuardedFd master;
    private final int threads;
    private final int bufferSize;
    private final int maxBuffers;
    private final Arena arena = Arena.ofShared();
    private final LinkedBlockingQueue<DevBuffer> free = new LinkedBlockingQueue<>();
    private final AtomicInteger allocated = new AtomicInteger();
    private final List<Thread> readers = new ArrayList<>();
    private final List<GuardedFd> clones = new ArrayList<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final Runnable onEnd;
    private volatile boolean closing;

    /**
     * @param bufferSize bytes per request buffer: at least max_write + 4 KiB
     * @param onEnd      run once when the last reader has stopped (unmount, abort, close)
     */
    public DevFuseTransport(RequestHandler session, GuardedFd master, int threads, int bufferSize, Runnable onEnd) {
        this.session = session;
        this.master = master;
        this.threads = threads;
        this.bufferSize = Math.max(bufferSize, Fuse.MIN_READ_BUFFER);
        this.maxBuffers = threads * 4 + 16;
        this.onEnd = onEnd;
    }

    /** Starts the first reader on the session descriptor (it will read INIT). */
    public void startFirst() {
        startReader(master, 0);
    }

    /** Starts the remaining readers, each on a fresh clone (needs the mount made). */
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
    public String describe() { return threads + " threads"; }

    /** Starts the remaining readers, each on a fresh clone (needs the mount made). */
    public void startClones() {
        for (int i = 1; i < threads; i++) {
            GuardedFd fd;
            try {
                fd = cloneDevice();
            } catch (ErrnoException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot clone /dev/fuse (" + e.getMessage()
                        + "); reader " + i + " shares the session descriptor");
                fd = master;
            }
            startReader(fd, i);
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

    private void startReader(GuardedFd fd, int index) {
        running.incrementAndGet();
        Thread t = Thread.ofPlatform().daemon().name("ringfuse-dev-" + index).unstarted(() -> readLoop(fd));
        synchronized (readers) {
            readers.add(t);
        }
        t.start();
    }

    private void readLoop(GuardedFd fd) {
        try {
            if (session.ioFlusher()) IoFlusher.markServingThread();
            DevBuffer b = acquire();
            while (b != null && !closing) {
                long n = Libc.read(fd.fd(), b.seg, bufferSize);
                if (n < 0) {
                    int e = (int) -n;
                    if (e == EINTR || e == EAGAIN || e == ENOENT) continue;
                    if (e != ENODEV && e != ECONNABORTED) {
                        LOG.log(System.Logger.Level.ERROR, "read(/dev/fuse): " + Errno.describe(e) + "; reader stops");
                    }
                    release(b);
                    break;
                }
                b.fd = fd;
                if (serve(b, (int) n)) b = acquire();
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "reader " + Thread.currentThread().getName() + " failed", t);
        } finally {
            if (running.decrementAndGet() == 0) {
                ended.countDown();
                onEnd.run();
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
