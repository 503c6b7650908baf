package dev.ringfuse.uring;

import java.io.Serial;

/** The operation never completed because its ring (or event loop) was closed; errno is ECANCELED. */
public final class RingClosedException extends UringException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** @param operation the opcode or call that was cancelled by the close */
    public RingClosedException(String operation) {
        super(operation, ECANCELED, "ring closed");
    }
}
