package dev.ringfuse.transport;

import java.lang.foreign.MemorySegment;

/**
 * One request's buffer as a transport lends it to the session: where the reply body goes, and how the
 * reply leaves. The request's segments stay valid until {@link #send} or {@link #recycle}.
 */
public interface Exchange {
    /** The reply body area (after fuse_out_header), at least max_write + 4 KiB. */
    MemorySegment body();

    /**
     * Sends fuse_out_header{16 + bodyLen, error, unique} and the body in one write. If {@code recycle}, the
     * buffer goes back to the transport afterwards (the request had gone asynchronous).
     *
     * @param error 0 or a negative errno; with an error the body must be empty
     */
    void send(long unique, int error, int bodyLen, boolean recycle);

    /** Returns the buffer without a reply (a request that gets none, once it went asynchronous). */
    void recycle();

    /** The name of the transport that carries this exchange ("dev", "uring"), for events and statistics. */
    String transport();

    /**
     * When the transport took the request in ({@link System#nanoTime()}), where its latency starts. Transports
     * stamp it once per read or per batch of completions they take in, which the session then needs no clock
     * call of its own for (a clock read costs about as much as the rest of what the session adds).
     */
    default long received() {
        return System.nanoTime();
    }
}
