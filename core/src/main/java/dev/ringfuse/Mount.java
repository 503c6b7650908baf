package dev.ringfuse;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A live FUSE mount served by this JVM. {@link #close()} unmounts, stops every thread and frees every
 * buffer; a JVM shutdown hook does the same for mounts still open when the JVM exits.
 */
public interface Mount extends AutoCloseable {
    /** The absolute mount point. */
    Path mountpoint();

    /** The transport that serves requests ("dev" or "uring"), decided during INIT. */
    TransportKind transport();

    /** A one-line description: mount point, transport, threads. */
    String describe();

    /** True until the mount has ended (closed here, or unmounted from outside). */
    boolean isAlive();

    /** Waits until the mount ends (for example `umount` from outside). */
    void awaitUnmount() throws InterruptedException;

    /** Waits at most {@code timeout} for the mount to end; returns whether it did. */
    boolean awaitUnmount(Duration timeout) throws InterruptedException;

    /** Unmounts (lazily if busy), ends the session and joins its threads. Idempotent. */
    @Override
    void close();
}
