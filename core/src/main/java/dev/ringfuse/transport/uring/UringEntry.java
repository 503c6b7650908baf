package dev.ringfuse.transport.uring;

import dev.ringfuse.kernel.Off;
import dev.ringfuse.transport.Exchange;
import java.lang.foreign.MemorySegment;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;

/**
 * One ring entry of a FUSE-over-io_uring queue: its header buffer (fuse_uring_req_header: in_out, op_in,
 * ring_ent_in_out) and payload buffer, registered with the kernel once and reused for every request.
 * The reply header goes to in_out, the reply body to the payload, its size to payload_sz; the commit
 * itself is an SQE that only the queue's own thread may submit, so a reply from another thread is handed
 * to that thread.
 */
final class UringEntry implements Exchange {
    final int index;
    final MemorySegment header;
    final MemorySegment payload;
    final MemorySegment iov;
    private final UringQueue queue;
    /** commit_id of the request now in this entry (from ring_ent_in_out). */
    long commitId;
    /** When the queue took the request in: the time it woke with the batch of completions that held it. */
    long received;

    UringEntry(int index, MemorySegment header, MemorySegment payload, MemorySegment iov, UringQueue queue) {
        this.index = index;
        this.header = header;
        this.payload = payload;
        this.iov = iov;
        this.queue = queue;
    }

    @Override
    public MemorySegment body() {
        return payload;
    }

    @Override
    public void send(long unique, int error, int bodyLen, boolean recycle) {
        try {
            int len = error == 0 ? bodyLen : 0;
            i32(header, Off.OUT_HEADER_LEN, Off.SIZEOF_OUT_HEADER + len);
            i32(header, Off.OUT_HEADER_ERROR, error);
            i64(header, Off.OUT_HEADER_UNIQUE, unique);
            i32(header, Off.URING_REQ_HEADER_RING_ENT_IN_OUT + Off.URING_ENT_IN_OUT_PAYLOAD_SZ, len);
        } catch (IllegalStateException closed) {
            return; // the queue was torn down before this late reply
        }
        queue.commit(this);
    }

    @Override
    public String transport() {
        return "uring";
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public void recycle() {
        // an entry returns to the kernel only through a commit; a request that got no reply keeps it until teardown
    }
}
