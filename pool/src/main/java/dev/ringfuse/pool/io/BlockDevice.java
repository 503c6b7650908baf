package dev.ringfuse.pool.io;

import java.io.IOException;
import java.util.List;

/**
 * A device the pool stores blocks on. Offsets and lengths are multiples of {@link #alignment()}; a write is
 * durable only after a later {@link #flush()} returns. Implementations are thread-safe.
 */
public interface BlockDevice extends AutoCloseable {

    /** One write of a batch: {@code data} at {@code offset}. */
    record Write(long offset, byte[] data) {}

    /** Size in bytes. */
    long size();

    /** Alignment required for offsets and lengths (the logical block size, at most 4096). */
    int alignment();

    /** A name for messages (the path). */
    String name();

    void read(long offset, byte[] dst, int off, int len) throws IOException;

    void write(long offset, byte[] src, int off, int len) throws IOException;

    /**
     * Starts a read of {@code len} bytes at {@code offset} and completes with them (read-ahead keeps several
     * in flight). The default reads synchronously.
     */
    default java.util.concurrent.CompletableFuture<byte[]> readAsync(long offset, int len) {
        try {
            byte[] b = new byte[len];
            read(offset, b, 0, len);
            return java.util.concurrent.CompletableFuture.completedFuture(b);
        } catch (IOException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Starts a read of {@code len} bytes at {@code offset} and, once it completed, applies {@code use} to them
     * on {@code ex} while they are still in the device's buffer (valid only during the call): `pool verify`
     * checksums there instead of copying every block to the heap first. The default reads into an array.
     */
    default <T> java.util.concurrent.CompletableFuture<T> readAsync(long offset, int len, java.util.concurrent.Executor ex,
                                                                   java.util.function.Function<java.lang.foreign.MemorySegment, T> use) {
        return readAsync(offset, len).thenApplyAsync(b -> use.apply(java.lang.foreign.MemorySegment.ofArray(b)), ex);
    }

    /** Writes several blocks, possibly all in flight at once; returns when every one completed. */
    default void writeAll(List<Write> writes) throws IOException {
        for (Write w : writes) write(w.offset(), w.data(), 0, w.data().length);
    }

    /** Makes every completed write durable (fdatasync / cache flush). */
    void flush() throws IOException;

    @Override
    void close() throws IOException;

    /** Checks that {@code offset}/{@code len} are aligned and inside the device. */
    default void checkRange(long offset, int len) throws IOException {
        int a = alignment();
        if (offset < 0 || offset % a != 0 || len % a != 0 || offset + len > size()) {
            throw new IOException(name() + ": unaligned or out-of-range I/O at " + offset + " length " + len);
        }
    }
}
