package dev.ringfuse.lowlevel;

import dev.ringfuse.Errno;

/**
 * A handle that answers one request. Every reply kind can answer with an error. Completing a handle a
 * second time throws {@link IllegalStateException}.
 */
public interface Reply {

    /** Answers the request with {@code errno}. */
    void error(Errno errno);

    /** Answers with a raw positive errno value (for values {@link Errno} does not name). */
    void error(int errno);

    /** True once this handle has been completed. */
    boolean isDone();
}
