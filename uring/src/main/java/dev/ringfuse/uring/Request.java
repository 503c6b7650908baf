package dev.ringfuse.uring;


import java.lang.foreign.MemorySegment;

/**
 * One operation handed from any thread to an event loop: the SQE fields to write and how to report the result.
 *
 * <p>A request is completed exactly once, on the loop thread (or on a producer thread when the loop is already
 * gone). {@code keepAlive} holds the segment the kernel reads or writes so that an automatic arena cannot free it
 * while the operation is in flight.
 */
abstract class Request {
    final Opcode opcode;
    final int fd;
    final long addr;
    final int len;
    final long off;
    final int opFlags;
    private final Object keepAlive;

    protected Request(Opcode opcode, int fd, long addr, int len, long off, int opFlags, Object keepAlive) {
        this.opcode = opcode;
        this.fd = fd;
        this.addr = addr;
        this.len = len;
        this.off = off;
        this.opFlags = opFlags;
        this.keepAlive = keepAlive;
    }

    /** The operation name used in exceptions ({@code "READ"}, ...). */
    public String operation() {
        return opcode.name();
    }

    /** Fills a zeroed SQE (everything but user_data). */
    void prepare(Sqe sqe) {
        sqe.prepRw(opcode, fd, addr, len, off).opFlags(opFlags);
    }

    /** The CQE result arrived: {@code res} ≥ 0, or -errno. */
    final void complete(int res) {
        if (res >= 0) succeed(res);
        else fail(UringException.fromResult(opcode.name(), res));
    }

    /** The loop shut down before the kernel finished (or started) this request. */
    final void cancelClosed() {
        fail(new RingClosedException(opcode.name()));
    }

    protected abstract void succeed(int res);

    protected abstract void fail(Throwable error);

    /** A read or write of {@code buf} at {@code offset}. */
    protected static long address(MemorySegment buf) {
        if (!buf.isNative()) throw new IllegalArgumentException("io_uring needs native memory, got a heap segment");
        return buf.address();
    }

    protected static int length(MemorySegment buf) {
        if (buf.byteSize() > Integer.MAX_VALUE) throw new IllegalArgumentException("buffer larger than 2 GiB");
        return (int) buf.byteSize();
    }

    protected Object keepAlive() {
        return keepAlive;
    }
}
