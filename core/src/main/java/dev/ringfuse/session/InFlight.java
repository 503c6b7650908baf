package dev.ringfuse.session;

import dev.ringfuse.kernel.Opcode;
import dev.ringfuse.transport.Exchange;

/**
 * What the session keeps of a request between dispatch and reply, apart from its reply handle: the
 * in-flight table and the Cleaner hold this, never the handle, so a handle the filesystem drops can be
 * reclaimed and answered EIO.
 */
final class InFlight implements Runnable {
    final long unique;
    final Opcode op;
    final Exchange exchange;
    final Session session;
    /** Where the in-flight table keeps it; the links are guarded by the stripe's monitor. */
    final InFlightTable.Stripe stripe;
    InFlight prev, next;
    boolean linked;
    /** The node the request is about, and its size as read (for events and statistics). */
    long nodeid;
    int bytesIn;
    /** System.nanoTime() when the transport took it in ({@code Exchange.received}). */
    long start;
    /** The JFR event, only while a recording has it enabled; else null. */
    RequestEvent event;
    volatile boolean interrupted;
    volatile boolean done;
    /**
     * A direct WRITE's range, which its reply may have to invalidate first (DirectWriteGuard decides when the
     * reply comes); length 0: not a direct write.
     */
    long invalNode, invalOffset, invalLength;
    /**
     * A direct WRITE's reply given during the callback on its thread waits for its invalidation on a guard
     * thread, which then gives the buffer back: written and read on the callback's thread, so plain.
     */
    boolean held;

    InFlight(Session session, InFlightTable.Stripe stripe, long unique, Opcode op, Exchange exchange) {
        this.session = session;
        this.stripe = stripe;
        this.unique = unique;
        this.op = op;
        this.exchange = exchange;
    }

    void directWrite(long nodeid, long offset, long length) {
        invalNode = nodeid;
        invalOffset = offset;
        invalLength = length;
    }

    /** The Cleaner's action: the handle became unreachable; answer EIO if nobody did. */
    @Override
    public void run() {
        if (done) return;
        done = true;
        session.abandoned(this);
    }
}
