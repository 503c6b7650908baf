package dev.ringfuse.uring;

import java.util.concurrent.CompletableFuture;

/**
 * Work that must run on a loop's own thread with its ring — io_uring_register on a SINGLE_ISSUER ring is
 * refused from any other task. It travels the request queue but takes no SQE.
 */
final class RingTask<T> extends Request {
    /** What runs on the loop thread. */
    interface Body<T> {
        T run(IoUring ring) throws UringException;
    }

    private final Body<T> body;
    private final CompletableFuture<T> future = new CompletableFuture<>();

    RingTask(String name, Body<T> body) {
        super(Opcode.NOP, -1, 0, 0, 0, 0, name);
        this.body = body;
    }

    CompletableFuture<T> future() { return future; }

    void runOn(IoUring ring) {
        try {
            future.complete(body.run(ring));
        } catch (Throwable t) {
            future.completeExceptionally(t);
        }
    }

    @Override
    protected void succeed(int res) {
        // never submitted as an SQE
    }

    @Override
    protected void fail(Throwable error) {
        future.completeExceptionally(error);
    }
}
