package dev.ringfuse.transport;

import java.util.concurrent.TimeUnit;

/**
 * A way for requests to travel between the kernel and a {@link RequestHandler}: threads that read requests,
 * hand each over as an {@link Exchange}, and carry the reply back on the exchange. The session knows only
 * this interface; each implementation lives in its own package and is created on one line of the server's
 * factory.
 *
 * <p>Lifecycle, in order: {@link #prepare} (before the INIT reply, so a failure can still turn the
 * transport off in it), {@link #start} (after the INIT reply), then {@link #stop} / {@link #awaitEnd} at
 * unmount, then {@link #close} once every thread has ended.
 */
public interface Transport {
    /** Acquires what the transport needs (threads, rings, buffers) before INIT is answered. */
    default void prepare() throws java.io.IOException {}

    /** INIT has been answered: serve requests. */
    void start();

    /** Waits until the transport serves requests (for example every queue registered); false on timeout. */
    default boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return true;
    }

    /** Asks every thread to end (a no-op for threads that end when the connection does). */
    void stop();

    /** Waits until every thread has ended; returns whether they did. */
    boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException;

    /** True once every thread has ended. */
    boolean isEnded();

    /** Frees descriptors and buffers; call after the threads ended (else they are left, and that is logged). */
    void close();

    /** The transport's name as {@code Mount.transport()} reports it: "dev", "uring". */
    String name();

    /** How it serves, for a one-line description: "4 threads", "2 queues". */
    String describe();

    /** Appends the statistics lines of its serving threads' polling ({@link AdaptiveSpin#describe}), if any. */
    default void describePolling(StringBuilder b) {}
}
