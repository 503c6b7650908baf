package dev.ringfuse.uring;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A ring owned by its own platform thread, accepting operations from any thread.
 *
 * <p>Operations travel through a lock-free queue to the loop thread, which batches them into SQEs, submits, and
 * completes their futures when the CQEs arrive. Futures complete <em>on the loop thread</em>: dependent stages
 * added with the non-async {@code thenX} methods run there and must not block; use the {@code *Async} variants
 * for real work.
 *
 * <p>{@link #close()} fails queued operations, cancels in-flight ones (their futures complete exceptionally with
 * {@link RingClosedException}), waits up to two seconds for the kernel to release their buffers, and frees the ring.
 */
public final class UringLoop implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final EventLoop loop;
    private final Thread thread;

    private UringLoop(RingConfig config, String name) throws UringException {
        this.loop = new EventLoop(config);
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(loop);
        thread.start();
        try {
            loop.awaitStarted();
        } catch (UringException | RuntimeException e) {
            loop.close();
            throw e;
        }
    }

    /** Starts a loop on a ring with {@code config}; the ring is created on the loop thread. */
    public static UringLoop start(RingConfig config) throws UringException {
        return new UringLoop(config, "uring-loop-" + COUNTER.incrementAndGet());
    }

    /**
     * Starts a loop with {@code entries} SQEs and the setup flags that suit a single-owner loop: SINGLE_ISSUER,
     * DEFER_TASKRUN and COOP_TASKRUN (completions are processed only when the loop waits, without IPIs).
     */
    public static UringLoop start(int entries) throws UringException {
        return start(defaultConfig(entries));
    }

    static RingConfig defaultConfig(int entries) {
        return RingConfig.builder(entries).cqEntries(entries * 2).singleIssuer().deferTaskrun().coopTaskrun()
                .submitAll().build();
    }

    /** Runs {@code request} on the loop; package-internal entry point for the file classes. */
    void execute(Request request) {
        loop.execute(request);
    }

    /** A NOP round trip through the ring (useful to measure or test the loop itself). */
    public CompletableFuture<Integer> nop() {
        FutureRequest r = new FutureRequest(Opcode.NOP, -1, 0, 0, 0, 0, null);
        loop.execute(r);
        return r.future();
    }

    /**
     * Registers {@code buffers} with the loop's ring (IORING_REGISTER_BUFFERS, run on the loop thread as a
     * SINGLE_ISSUER ring requires); then {@link AsyncFile#readFixed}/{@link AsyncFile#writeFixed} address them
     * by index. The segments must outlive the registration; closing the loop unregisters them (no handle is
     * returned: unregistering must also run on the loop thread, so it is left to {@link #close}).
     *
     * @return how many buffers are registered
     */
    public int registerBuffers(MemorySegment... buffers) throws UringException {
        MemorySegment[] copy = buffers.clone();
        RingTask<RegisteredBuffers> t = new RingTask<>("io_uring_register(BUFFERS)", ring -> ring.registerBuffers(copy));
        loop.execute(t);
        return Futures.join(t.future()).count();
    }

    /** Opens {@code path} with OPENAT on the ring. */
    public CompletableFuture<AsyncFile> openAsync(Path path, int flags, int mode) {
        Arena arena = Arena.ofShared();
        MemorySegment cpath = arena.allocateFrom(path.toString());
        FutureRequest r = new FutureRequest(Opcode.OPENAT, IoUring.AT_FDCWD, cpath.address(), mode, 0,
                flags | OpenFlags.O_CLOEXEC, cpath);
        loop.execute(r);
        return r.future().whenComplete((fd, err) -> arena.close()).thenApply(fd -> new AsyncFile(this, fd, path));
    }

    /** Opens {@code path} and waits for the result. */
    public AsyncFile open(Path path, int flags, int mode) throws UringException {
        return Futures.join(openAsync(path, flags, mode));
    }

    /** Wraps an already open descriptor; closing the AsyncFile closes it. */
    public AsyncFile wrap(int fd) {
        return new AsyncFile(this, fd, null);
    }

    /** The probed opcodes and feature bits of this loop's ring. */
    public Features features() {
        return loop.features();
    }

    /** Whether {@link #close()} has run; operations started after it fail with {@link RingClosedException}. */
    public boolean isClosed() {
        return loop.isClosed();
    }

    /** Stops the loop: pending operations fail with {@link RingClosedException}. Idempotent. */
    @Override
    public void close() {
        loop.close();
    }

    @Override
    public String toString() {
        return "UringLoop[" + thread.getName() + (isClosed() ? ", closed" : "") + "]";
    }
}
