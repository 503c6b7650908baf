package dev.ringfuse.transport.dev;

import dev.ringfuse.kernel.Off;
import dev.ringfuse.transport.Exchange;
import dev.ringfuse.sys.GuardedFd;
import java.lang.foreign.MemorySegment;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;

/**
 * One request buffer of the /dev/fuse transport, and the exchange over it: the reply is encoded in place
 * (header at 0, body at 16, after the request has been decoded) and written in one write(2) on the
 * descriptor that read the request.
 */
final class DevBuffer implements Exchange {
    final MemorySegment seg;
    private final MemorySegment body;
    private final DevFuseTransport owner;
    /** The descriptor that read the request now in this buffer. */
    GuardedFd fd;
    /** When read(2) returned the request now in this buffer. */
    long received;

    DevBuffer(MemorySegment seg, DevFuseTransport owner) {
        this.seg = seg;
        this.body = seg.asSlice(Off.SIZEOF_OUT_HEADER);
        this.owner = owner;
    }

    @Override
    public MemorySegment body() {
        return body;
    }

    @Override
    public void send(long unique, int error, int bodyLen, boolean recycle) {
        try {
            int len = Off.SIZEOF_OUT_HEADER + (error == 0 ? bodyLen : 0);
            i32(seg, Off.OUT_HEADER_LEN, len);
            i32(seg, Off.OUT_HEADER_ERROR, error);
            i64(seg, Off.OUT_HEADER_UNIQUE, unique);
            long n = fd.write(seg, len);
            if (n < 0) owner.writeFailed(unique, (int) -n);
        } catch (IllegalStateException closed) {
            // the transport was closed (its buffers freed) before this late reply: nothing to answer
        } finally {
            if (recycle) owner.release(this);
        }
    }

    @Override
    public String transport() {
        return "dev";
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public void recycle() {
        owner.release(this);
    }
}
