package dev.ringfuse.uring;


import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A request whose submitter parks until the loop completes it. On a virtual thread, parking unmounts it from its
 * carrier (no pinning), so thousands of callers can wait on a handful of rings.
 */
final class ParkingRequest extends Request {
    private final Thread waiter = Thread.currentThread();
    private int result;
    private Throwable error;
    private volatile boolean done;       // publishes result/error (written before it) to the waiter

    public ParkingRequest(Opcode opcode, int fd, long addr, int len, long off, int opFlags, Object keepAlive) {
        super(opcode, fd, addr, len, off, opFlags, keepAlive);
    }

    public static ParkingRequest io(Opcode opcode, int fd, MemorySegment buf, long offset) {
        return new ParkingRequest(opcode, fd, address(buf), length(buf), offset, 0, buf);
    }

    @Override
    protected void succeed(int res) {
        result = res;
        done = true;
        LockSupport.unpark(waiter);
    }

    @Override
    protected void fail(Throwable e) {
        error = e;
        done = true;
        LockSupport.unpark(waiter);
    }

    /**
     * Waits for the result. Interrupts do not abandon the wait: the kernel may still be using the buffer, so the
     * caller cannot be allowed to reuse it early; the interrupt status is restored afterwards.
     */
    public int await() throws UringException {
        boolean interrupted = false;
        while (!done) {
            LockSupport.park(this);
            if (Thread.interrupted()) interrupted = true;
        }
        if (interrupted) waiter.interrupt();
        if (error instanceof UringException u) throw u;
        if (error instanceof RuntimeException r) throw r;
        if (error != null) throw new IllegalStateException(error);
        return result;
    }
}
