package dev.ringfuse.session;

import dev.ringfuse.kernel.Opcode;
import dev.ringfuse.transport.Exchange;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the session keeps of a request between dispatch and reply, apart from its reply handle: the
 * in-flight table and the Cleaner hold this, never the handle, so a handle the filesystem drops can be
 * reclaimed and answered EIO.
 */
final class InFlight implements Runnable {
    private static final int OPEN = 0, HELD = 1, RETURNED = 2;
    private static final VarHandle BUFFER;

    static {
        try {
            BUFFER = MethodHandles.lookup().findVarHandle(InFlight.class, "buffer", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    /** Who keeps a direct WRITE's buffer: OPEN while dispatch runs, then HELD by its reply or RETURNED to the transport. */
    @SuppressWarnings("unused") // via BUFFER
    private volatile int buffer;

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

    /**
     * A reply given before dispatch returned keeps the buffer (to send it later, from another thread); false
     * once dispatch has given the buffer back to the transport.
     */
    boolean holdBuffer() {
        return BUFFER.compareAndSet(this, OPEN, HELD);
    }

    /** Dispatch returns: true if a reply holds the buffer, else it goes back to the transport now. */
    boolean bufferHeld() {
        return !BUFFER.compareAndSet(this, OPEN, RETURNED);
    }

    /** The Cleaner's action: the handle became unreachable; answer EIO if nobody did. */
    @Override
    public void run() {
        if (done) return;
        done = true;
        session.abandoned(this);
    }
}
