package dev.ringfuse.transport.uring;

import dev.ringfuse.transport.RequestHandler;
import dev.ringfuse.transport.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The FUSE-over-io_uring transport (Linux 6.14+): one {@link UringQueue} per possible CPU. Built in two
 * steps around INIT, as the kernel requires: {@link #prepare()} while INIT is being answered (rings and
 * buffers exist, so a failure can still turn io_uring off in the reply), {@link #start()} after the reply
 * (REGISTER before it gets EAGAIN; after it, every request waits until all queues have registered).
 * The /dev/fuse reader stays for INIT, FORGET, INTERRUPT and notifications.
 */
public final class UringTransport implements Transport {
    private static final Path ENABLE = Path.of("/sys/module/fuse/parameters/enable_uring");

    private final List<UringQueue> queues = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch registered;
    private final CountDownLatch ended;
    private final boolean polling;

    public UringTransport(RequestHandler session, int devFd, int depth, int spinMicros, int payloadSize) {
        this.polling = spinMicros > 0;
        int n = Cpus.possible();
        registered = new CountDownLatch(n);
        ended = new CountDownLatch(n);
        for (int q = 0; q < n; q++) queues.add(new UringQueue(q, depth, spinMicros * 1000L, payloadSize, devFd, session, this));
        if (dev.ringfuse.transport.AdaptiveSpin.MOUNT_SCOPE) {
            List<dev.ringfuse.transport.AdaptiveSpin> all = queues.stream().map(UringQueue::spin).toList();
            all.forEach(s -> s.shareWith(all));
        }
    }

    /** Why io_uring cannot be used here, or null if the kernel side is available. */
    public static String unavailableReason() {
        if (!Files.exists(ENABLE)) {
            return "the kernel has no FUSE-over-io_uring (needs Linux 6.14+ built with CONFIG_FUSE_IO_URING)";
        }
        try {
            String v = Files.readString(ENABLE).trim();
            if (!v.equals("Y") && !v.equals("1")) {
                return "FUSE-over-io_uring is disabled: " + ENABLE + " is " + v + "; enable it as root before "
                        + "mounting with: echo 1 > " + ENABLE;
            }
        } catch (IOException e) {
            return "cannot read " + ENABLE + ": " + e.getMessage();
        }
        return null;
    }

    /** Starts the queue threads and waits until each has its ring and buffers; throws if one could not. */
    @Override
    public void prepare() throws IOException {
        for (UringQueue q : queues) {
            Thread t = Thread.ofPlatform().daemon().name("ringfuse-uring-" + threads.size()).unstarted(q);
            threads.add(t);
            t.start();
        }
        try {
            for (UringQueue q : queues) {
                q.setUp.await();
                if (q.setupFailure() != null) {
                    stop();
                    throw new IOException("io_uring queue setup failed: " + q.setupFailure(), q.setupFailure());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IOException("interrupted while setting up io_uring queues");
        }
    }

    /** INIT has been answered: register every queue's entries. */
    @Override
    public void start() {
        queues.forEach(UringQueue::go);
    }

    /** Waits until every queue has submitted its REGISTER commands. */
    @Override
    public boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return registered.await(timeout, unit);
    }

    void queueRegistered() { registered.countDown(); }

    void queueEnded() {
        registered.countDown();
        ended.countDown();
    }

    /** The number of queues (possible CPUs). */
    public int queueCount() { return queues.size(); }

    @Override
    public boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException {
        return ended.await(timeout, unit);
    }

    @Override
    public boolean isEnded() { return ended.getCount() == 0; }

    /** Each queue frees its ring and buffers when its thread ends. */
    @Override
    public void close() {}

    @Override
    public String name() { return "uring"; }

    @Override
    public String describe() { return queues.size() + " queues"; }

    @Override
    public void describePolling(StringBuilder b) {
        java.util.List<String> names = new ArrayList<>();
        for (int q = 0; q < queues.size(); q++) names.add("q" + q);
        dev.ringfuse.transport.AdaptiveSpin.describe(b, names, queues.stream().map(UringQueue::spin).toList());
        if (polling) {
            dev.ringfuse.transport.KeepAwake.get().describe(b);
            dev.ringfuse.transport.LatencyHint.get().describe(b);
        }
    }

    /** Stops every queue (closing a ring cancels its registered commands). */
    @Override
    public void stop() {
        queues.forEach(UringQueue::stop);
    }
}
