package dev.ringfuse.uring;

import java.lang.foreign.MemorySegment;

/** READ_FIXED / WRITE_FIXED: a {@link FutureRequest} whose buffer lies in registered buffer {@code bufIndex}. */
final class FixedRequest extends FutureRequest {
    private final int bufIndex;

    FixedRequest(Opcode opcode, int fd, MemorySegment buf, long offset, int bufIndex) {
        super(opcode, fd, address(buf), length(buf), offset, 0, buf);
        this.bufIndex = bufIndex;
    }

    @Override
    void prepare(Sqe sqe) {
        super.prepare(sqe);
        sqe.bufIndex(bufIndex);
    }
}
