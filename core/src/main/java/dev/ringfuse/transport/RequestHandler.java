package dev.ringfuse.transport;

import dev.ringfuse.protocol.Decoder;
import dev.ringfuse.protocol.Request;

/** Where a transport delivers requests: the session of the connection. Called from any number of threads. */
public interface RequestHandler {
    /** The decoder for this connection (replaced once INIT has negotiated the wire format). */
    Decoder decoder();

    /**
     * Handles one decoded request whose buffer is {@code ex}. Returns true if the request is still pending
     * (its reply will come later and will recycle {@code ex}); false if {@code ex} is free again.
     */
    boolean handle(Request r, Exchange ex);

    /**
     * Whether the transport's serving threads must mark themselves PR_SET_IO_FLUSHER (the mount backs a
     * block device, see {@code MountOptions.ioFlusher}).
     */
    default boolean ioFlusher() {
        return false;
    }
}
