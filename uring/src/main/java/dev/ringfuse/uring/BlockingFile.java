package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A file opened through {@link UringFiles}: methods block the calling thread (park, for virtual threads) until the
 * ring completes the operation. Thread-safe; buffers must be native.
 */
public final class BlockingFile implements AutoCloseable {
    private final UringFiles files;
    private final int fd;
    private final Path path;
    private final AtomicBoolean closed = new AtomicBoolean();

    BlockingFile(UringFiles files, int fd, Path path) {
        this.files = files;
        this.fd = fd;
        this.path = path;
    }

    /** The file descriptor, for calls this class does not offer; owned by this object (closed by {@link #close()}). */
    public int fd() { return fd; }

    /** Reads up to {@code dst.byteSize()} bytes at {@code offset}; returns the count (0 at EOF). */
    public int read(MemorySegment dst, long offset) throws UringException {
        return run(ParkingRequest.io(Opcode.READ, fd, dst, offset));
    }

    /** Writes {@code src} at {@code offset}; returns the count written. */
    public int write(MemorySegment src, long offset) throws UringException {
        return run(ParkingRequest.io(Opcode.WRITE, fd, src, offset));
    }

    /** fsync, or fdatasync with {@code datasync}. */
    public void fsync(boolean datasync) throws UringException {
        run(new ParkingRequest(Opcode.FSYNC, fd, 0, 0, 0, datasync ? Abi.IORING_FSYNC_DATASYNC : 0, null));
    }

    private int run(ParkingRequest r) throws UringException {
        if (closed.get()) throw UringFiles.closedFile(r);
        return files.call(r);
    }

    /** Closes the descriptor (CLOSE on a ring), once. */
    @Override
    public void close() throws UringException {
        if (closed.compareAndSet(false, true)) files.call(new ParkingRequest(Opcode.CLOSE, fd, 0, 0, 0, 0, null));
    }

    @Override
    public String toString() {
        return "BlockingFile[fd=" + fd + ", " + path + "]";
    }
}
