package dev.ringfuse.uring;

/**
 * One reaped completion queue entry, copied out of ring memory.
 *
 * @param userData the SQE's {@code user_data}
 * @param res      the result: ≥ 0 on success (bytes, fd, ...), {@code -errno} on failure
 * @param flags    {@code IORING_CQE_F_*} bits
 */
public record Completion(long userData, int res, int flags) {
    /** Whether {@code res} is an error. */
    public boolean failed() {
        return res < 0;
    }

    /** The positive errno of a failed completion, or 0. */
    public int errno() {
        return res < 0 ? -res : 0;
    }
}
