package dev.ringfuse.pool.io;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A memory device whose next flush can be held (to catch what a command holds while its commit's I/O is in
 * progress), whose reads can be slowed (to keep a scrub running) and can fail on a range (an unreadable sector).
 */
public final class GatedDevice implements BlockDevice {
    private final MemoryDevice d;
    private volatile CountDownLatch entered, release;
    public volatile long readDelayNanos;
    /** Reads that touch [badFrom, badTo) fail with EIO (an unreadable sector); -1: none. */
    public volatile long badFrom = -1, badTo = -1;
    public final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
    /** Started reads run on a thread of their own, as a real device's do (MemoryDevice reads in the caller). */
    public volatile boolean asyncReads;
    private volatile CountDownLatch readsEntered, readsRelease;
    /** Reads waiting at the gate now. */
    public final java.util.concurrent.atomic.AtomicInteger readsHeld = new java.util.concurrent.atomic.AtomicInteger();

    /** Reads wait from now until {@link #releaseReads}; returns the latch a read counts down on arriving. */
    public CountDownLatch holdReads() {
        CountDownLatch entered = new CountDownLatch(1);
        readsEntered = entered; // before the gate closes: a read that finds it closed finds this latch
        readsRelease = new CountDownLatch(1);
        return entered;
    }

    public void releaseReads() {
        CountDownLatch r = readsRelease;
        readsRelease = null;
        if (r != null) r.countDown();
    }

    public GatedDevice(String name, long size) {
        this.d = new MemoryDevice(name, size);
    }

    /** The next flush waits for {@link #open}; returns the latch that flush counts down on entering. */
    public CountDownLatch holdNextFlush() {
        release = new CountDownLatch(1);
        return entered = new CountDownLatch(1);
    }

    public void open() {
        release.countDown();
    }

    @Override public long size() { return d.size(); }
    @Override public int alignment() { return d.alignment(); }
    @Override public String name() { return d.name(); }

    @Override
    public void read(long offset, byte[] dst, int off, int len) throws IOException {
        reads.incrementAndGet();
        CountDownLatch hold = readsRelease;
        if (hold != null) {
            readsHeld.incrementAndGet();
            readsEntered.countDown();
            try {
                pass(hold, "read");
            } finally {
                readsHeld.decrementAndGet();
            }
        }
        if (readDelayNanos > 0) LockSupport.parkNanos(readDelayNanos);
        if (badFrom >= 0 && offset < badTo && offset + len > badFrom) throw new IOException(name() + ": EIO reading at " + offset);
        d.read(offset, dst, off, len);
    }

    @Override
    public java.util.concurrent.CompletableFuture<byte[]> readAsync(long offset, int len) {
        if (!asyncReads) return BlockDevice.super.readAsync(offset, len);
        java.util.concurrent.CompletableFuture<byte[]> f = new java.util.concurrent.CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                byte[] b = new byte[len];
                read(offset, b, 0, len);
                f.complete(b);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    @Override
    public void write(long offset, byte[] src, int off, int len) throws IOException {
        d.write(offset, src, off, len);
    }

    @Override
    public void flush() throws IOException {
        CountDownLatch in = entered;
        if (in == null) return;
        entered = null;
        in.countDown();
        pass(release, "flush");
    }

    /** Waits up to 60 s for {@code gate} to open; an IOException if it does not or the wait is interrupted. */
    private static void pass(CountDownLatch gate, String what) throws IOException {
        try {
            if (!gate.await(60, TimeUnit.SECONDS)) throw new IOException(what + " gate never opened");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted in a held " + what);
        }
    }

    @Override public void close() {}
}
