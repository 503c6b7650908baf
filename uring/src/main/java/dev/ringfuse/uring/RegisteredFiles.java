package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ring's registered file table (IORING_REGISTER_FILES): slot {@code i} is used as {@code sqe.fd(i).fixedFile()}.
 * The kernel holds its own references, so the caller may close the original fds. {@link #close()} unregisters once.
 */
public final class RegisteredFiles implements AutoCloseable {
    private final IoUring ring;
    private final int[] fds;
    private final AtomicBoolean closed = new AtomicBoolean();

    RegisteredFiles(IoUring ring, int[] fds) {
        this.ring = ring;
        this.fds = fds;
    }

    /** @return how many slots are registered; valid slots are 0 to count() - 1 */
    public int count() { return fds.length; }

    /** The fd registered in slot {@code i} (as it was at registration time). */
    public int fd(int i) { return fds[i]; }

    /** @return whether the table was unregistered ({@link #close()}); its slots are then invalid */
    public boolean isClosed() { return closed.get(); }

    /** IORING_UNREGISTER_FILES, once; a no-op if the ring is already closed. Call from the ring's owner. */
    @Override
    public void close() throws UringException {
        if (closed.compareAndSet(false, true))
            ring.unregister(this, "io_uring_register(UNREGISTER_FILES)", Abi.IORING_UNREGISTER_FILES);
    }
}
