/**
 * Internals with no knowledge of the API above them: the kernel ABI ({@link dev.ringfuse.uring.internal.Abi},
 * the only place with offsets and flag values), libc downcalls ({@link dev.ringfuse.uring.internal.Syscalls}),
 * errno names, and the submission queue with the acquire/release accesses named after the liburing functions
 * they mirror. The ring memory, the completion queue (it calls the public {@code CompletionHandler}) and the
 * event-loop machinery (built on {@code IoUring}) are package-private classes of {@code dev.ringfuse.uring},
 * so this package never depends back on the API (no package cycle). Not exported.
 */
package dev.ringfuse.uring.internal;
