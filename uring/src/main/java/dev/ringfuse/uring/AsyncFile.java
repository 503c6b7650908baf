package dev.ringfuse.uring;


import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An open file whose operations run on a {@link UringLoop} and return {@link CompletableFuture}s. Thread-safe.
 *
 * <p>Buffers must be native segments (e.g. from {@code Arena.ofShared()}) and must not be reused or freed until
 * the returned future completes. Failures complete the future with a {@link UringException}.
 */
public final class AsyncFile implements AutoCloseable {
    private final UringLoop loop;
    private final int fd;
    private final Path path;
    private final AtomicBoolean closed = new AtomicBoolean();

    AsyncFile(UringLoop loop, int fd, Path path) {
        this.loop = loop;
        this.fd = fd;
        this.path = path;
    }

    /** The underlying descriptor. */
    public int fd() { return fd; }

    /** Reads up to {@code dst.byteSize()} bytes at {@code offset}; completes with the count (0 at EOF). */
    public CompletableFuture<Integer> read(MemorySegment dst, long offset) {
        return run(FutureRequest.io(Opcode.READ, fd, dst, offset));
    }

    /** Writes {@code src} at {@code offset}; completes with the count written. */
    public CompletableFuture<Integer> write(MemorySegment src, long offset) {
        return run(FutureRequest.io(Opcode.WRITE, fd, src, offset));
    }

    /** READ_FIXED into {@code dst}, which lies inside registered buffer {@code bufIndex} of this file's loop. */
    public CompletableFuture<Integer> readFixed(MemorySegment dst, long offset, int bufIndex) {
        return run(new FixedRequest(Opcode.READ_FIXED, fd, dst, offset, bufIndex));
    }

    /** WRITE_FIXED from {@code src}, which lies inside registered buffer {@code bufIndex} of this file's loop. */
    public CompletableFuture<Integer> writeFixed(MemorySegment src, long offset, int bufIndex) {
        return run(new FixedRequest(Opcode.WRITE_FIXED, fd, src, offset, bufIndex));
    }

    /** fsync, or fdatasync with {@code datasync}. */
    public CompletableFuture<Void> fsync(boolean datasync) {
        return run(new FutureRequest(Opcode.FSYNC, fd, 0, 0, 0,
                datasync ? dev.ringfuse.uring.internal.Abi.IORING_FSYNC_DATASYNC : 0, null)).thenApply(r -> null);
    }

    private CompletableFuture<Integer> run(FutureRequest r) {
        if (closed.get()) return CompletableFuture.failedFuture(new UringException(r.operation(), dev.ringfuse.uring.internal.Errno.EBADF, "file closed"));
        loop.execute(r);
        return r.future();
    }

    /** Closes the descriptor through the ring (CLOSE); once. */
    public CompletableFuture<Void> closeAsync() {
        if (!closed.compareAndSet(false, true)) return CompletableFuture.completedFuture(null);
        FutureRequest r = new FutureRequest(Opcode.CLOSE, fd, 0, 0, 0, 0, null);
        loop.execute(r);
        return r.future().thenApply(x -> null);
    }

    @Override
    public void close() throws UringException {
        Futures.join(closeAsync());
    }

    @Override
    public String toString() {
        return "AsyncFile[fd=" + fd + (path == null ? "" : ", " + path) + "]";
    }
}
