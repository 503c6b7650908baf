package dev.ringfuse.session;

import dev.ringfuse.Mount;
import dev.ringfuse.MountException;
import dev.ringfuse.MountMethod;
import dev.ringfuse.TransportKind;
import dev.ringfuse.mount.MountInfo;
import dev.ringfuse.mount.Mounter;
import dev.ringfuse.stats.StatsSocket;
import dev.ringfuse.sys.GuardedFd;
import dev.ringfuse.transport.Transport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A mount served by this JVM. Close: unmount (lazily if busy), wait for the readers to see ENODEV, abort
 * the connection through fusectl if they do not, end the session, free descriptors and buffers.
 */
final class LiveMount implements Mount {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");

    private final Path mountpoint;
    private final MountMethod method;
    private final GuardedFd fd;
    private final CountDownLatch gone = new CountDownLatch(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean unmountRecorded = new AtomicBoolean();
    private volatile StatsSocket stats;
    private volatile Session session;
    /** The /dev/fuse reader: INIT, FORGET, INTERRUPT, and every request unless another transport serves them. */
    private volatile Transport transport;
    /** The transport chosen during INIT when it is not the /dev/fuse reader itself, else null. */
    private volatile Transport uring;
    private volatile TransportKind kind;
    private volatile int connection = -1;
    private Thread hook;

    LiveMount(Path mountpoint, MountMethod method, GuardedFd fd) {
        this.mountpoint = mountpoint;
        this.method = method;
        this.fd = fd;
    }

    /** Run when the mount ends (unmounted, aborted or closed here); may run more than once. */
    private volatile Runnable onEnd = () -> { };

    void onEnd(Runnable r) {
        onEnd = r;
    }

    void attach(Session session, Transport transport) {
        this.session = session;
        this.transport = transport;
        this.kind = TransportKind.DEV;
    }

    void attachUring(Transport uring) {
        this.uring = uring;
        this.kind = TransportKind.valueOf(uring.name().toUpperCase(java.util.Locale.ROOT));
    }

    void ready() {
        MountInfo.at(mountpoint).filter(MountInfo::isFuse).ifPresent(i -> {
            connection = i.minor();
            openStats(i);
        });
        hook = Thread.ofPlatform().unstarted(this::closeFromHook);
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            hook = null;
        }
    }

    /** The statistics socket `ringfuse stats` reads; a mount serves without it if it cannot be made. */
    private void openStats(MountInfo i) {
        if (Boolean.getBoolean("ringfuse.stats.off")) return;
        try {
            int uid = (Integer) java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            Session s = session;
            stats = StatsSocket.open(uid, i.major(), i.minor(), () -> s.stats.snapshot(mountpoint.toString(),
                    kind.name().toLowerCase(java.util.Locale.ROOT), serving(), s.inFlight(), polling()));
        } catch (java.io.IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "no live statistics for " + mountpoint + ": " + e);
        }
    }

    private void closeStats() {
        StatsSocket s = stats;
        if (s != null) s.close();
    }

    private void closeFromHook() {
        hook = null;
        close();
    }

    /** The transport's readers all stopped: unmounted from outside, aborted, or closed here. */
    void transportEnded() {
        Session s = session;
        if (s != null) s.end();
        if (!closed.get()) recordUnmount(new UnmountEvent(), false);
        closeStats();
        onEnd.run();
        gone.countDown();
    }

    private void recordUnmount(UnmountEvent e, boolean here) {
        if (!unmountRecorded.compareAndSet(false, true)) return;
        e.end();
        if (!e.shouldCommit()) return;
        e.mountpoint = mountpoint.toString();
        e.closedHere = here;
        Session s = session;
        e.requests = s == null ? 0 : s.stats.total();
        e.commit();
    }

    /** The serving threads' polling counters, as statistics lines. */
    private String polling() {
        StringBuilder b = new StringBuilder();
        (uring != null ? uring : transport).describePolling(b);
        return b.toString();
    }

    /** How requests are served: "4 threads", "2 queues". */
    String serving() {
        return (uring != null ? uring : transport).describe();
    }

    @Override public Path mountpoint() { return mountpoint; }
    @Override public TransportKind transport() { return kind; }

    @Override
    public String describe() {
        String serving = serving();
        return mountpoint + " (transport " + kind.name().toLowerCase(java.util.Locale.ROOT) + ", "
                + serving + ", " + method.name().toLowerCase(java.util.Locale.ROOT) + " mount)";
    }

    @Override public boolean isAlive() { return gone.getCount() > 0; }

    @Override
    public void awaitUnmount() throws InterruptedException {
        gone.await();
    }

    @Override
    public boolean awaitUnmount(Duration timeout) throws InterruptedException {
        return gone.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            awaitQuietly(Duration.ofSeconds(10));
            return;
        }
        UnmountEvent event = new UnmountEvent();
        event.begin();
        boolean here = isAlive();
        Thread h = hook;
        if (h != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(h);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to: fine
            }
        }
        if (isAlive()) {
            try {
                Mounter.unmount(mountpoint, method);
            } catch (MountException e) {
                LOG.log(System.Logger.Level.WARNING, e.getMessage());
            }
        }
        Transport t = transport;
        try {
            if (t != null && !t.awaitEnd(2, TimeUnit.SECONDS)) {
                // lazily detached while busy, or a reader is stuck in a callback: abort the connection
                if (connection >= 0 && !Mounter.abort(connection)) {
                    LOG.log(System.Logger.Level.WARNING, "cannot abort FUSE connection " + connection);
                }
                if (!t.awaitEnd(5, TimeUnit.SECONDS)) {
                    LOG.log(System.Logger.Level.WARNING, "readers of " + mountpoint + " did not stop; left as daemon threads");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Transport u = uring;
        boolean queuesEnded = true;
        if (u != null) {
            try {
                if (!u.awaitEnd(2, TimeUnit.SECONDS)) {
                    u.stop();
                    queuesEnded = u.awaitEnd(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                queuesEnded = false;
            }
        }
        Session s = session;
        if (s != null) s.end();
        if (t != null) t.close();
        if ((t == null || t.isEnded()) && queuesEnded) {
            fd.close();
        } else {
            LOG.log(System.Logger.Level.WARNING, "the session descriptor of " + mountpoint + " stays open: a thread still uses it");
        }
        recordUnmount(event, here);
        closeStats();
        onEnd.run();
        gone.countDown();
    }

    private void awaitQuietly(Duration d) {
        try {
            gone.await(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
