package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ring's registered buffer table (IORING_REGISTER_BUFFERS). Buffer {@code i} is addressed with
 * {@code buf_index = i} in READ_FIXED/WRITE_FIXED. {@link #close()} unregisters once; the segments themselves stay
 * owned by the caller and must outlive this registration.
 */
public final class RegisteredBuffers implements AutoCloseable {
    private final IoUring ring;
    private final MemorySegment[] buffers;
    private final AtomicBoolean closed = new AtomicBoolean();

    RegisteredBuffers(IoUring ring, MemorySegment[] buffers) {
        this.ring = ring;
        this.buffers = buffers;
    }

    /** @return how many buffers are registered; valid indexes are 0 to count() - 1 */
    public int count() { return buffers.length; }

    /** The segment registered as index {@code i}. */
    public MemorySegment buffer(int i) { return buffers[i]; }

    /** @return whether the buffers were unregistered ({@link #close()}); their indexes are then invalid */
    public boolean isClosed() { return closed.get(); }

    /** IORING_UNREGISTER_BUFFERS, once; a no-op if the ring is already closed. Call from the ring's owner. */
    @Override
    public void close() throws UringException {
        if (closed.compareAndSet(false, true))
            ring.unregister(this, "io_uring_register(UNREGISTER_BUFFERS)", Abi.IORING_UNREGISTER_BUFFERS);
    }
}
