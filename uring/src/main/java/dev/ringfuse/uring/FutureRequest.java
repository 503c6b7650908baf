package dev.ringfuse.uring;


import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/** A request reported through a {@link CompletableFuture}, completed on the loop thread. */
class FutureRequest extends Request {
    private final CompletableFuture<Integer> future = new CompletableFuture<>();

    public FutureRequest(Opcode opcode, int fd, long addr, int len, long off, int opFlags, Object keepAlive) {
        super(opcode, fd, addr, len, off, opFlags, keepAlive);
    }

    /** A READ/WRITE-shaped request over {@code buf}. */
    public static FutureRequest io(Opcode opcode, int fd, MemorySegment buf, long offset) {
        return new FutureRequest(opcode, fd, address(buf), length(buf), offset, 0, buf);
    }

    public CompletableFuture<Integer> future() {
        return future;
    }

    @Override
    protected void succeed(int res) {
        future.complete(res);
    }

    @Override
    protected void fail(Throwable error) {
        future.completeExceptionally(error);
    }
}
