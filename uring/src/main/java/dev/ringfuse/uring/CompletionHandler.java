package dev.ringfuse.uring;

/**
 * Receives completions from {@link IoUring#reap(CompletionHandler)} without allocating: called on the reaping
 * thread with the CQE's fields while the entry is still in the ring. Route on {@code userData}.
 */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * @param userData the SQE's {@code user_data}
     * @param res      ≥ 0 on success, {@code -errno} on failure
     * @param flags    {@code IORING_CQE_F_*} bits
     */
    void onCompletion(long userData, int res, int flags);
}
