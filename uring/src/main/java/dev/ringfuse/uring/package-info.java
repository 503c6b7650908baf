/**
 * io_uring for Java, two levels.
 *
 * <p><b>Low level</b> (for transports such as FUSE-over-io_uring): {@link dev.ringfuse.uring.IoUring} created from a
 * {@link dev.ringfuse.uring.RingConfig}; SQEs prepared through the reusable {@link dev.ringfuse.uring.Sqe} cursor;
 * {@code submit()}, {@code submitAndWait(n)}; completions handed to a {@link dev.ringfuse.uring.CompletionHandler}
 * (or copied into {@link dev.ringfuse.uring.Completion} records); opcode support from
 * {@link dev.ringfuse.uring.Features}; registered buffers and files as AutoCloseable handles. A ring belongs to
 * one platform thread.
 *
 * <p><b>File level</b>: {@link dev.ringfuse.uring.UringLoop} runs one ring on its own platform thread and accepts
 * operations from any thread; {@link dev.ringfuse.uring.AsyncFile} returns CompletableFutures;
 * {@link dev.ringfuse.uring.UringFiles} shares a few loops among many (virtual) threads with a blocking
 * {@link dev.ringfuse.uring.BlockingFile}.
 *
 * <p>Failures are {@link dev.ringfuse.uring.UringException}s carrying errno and the operation name; operations cut
 * short by closing a ring fail with {@link dev.ringfuse.uring.RingClosedException}.
 */
package dev.ringfuse.uring;
