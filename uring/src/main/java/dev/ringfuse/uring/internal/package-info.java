/**
 * Internals: the kernel ABI ({@link dev.ringfuse.uring.internal.Abi}, the only place with offsets and flag values),
 * libc downcalls ({@link dev.ringfuse.uring.internal.Syscalls}), the mmap'd rings
 * ({@link dev.ringfuse.uring.internal.RingMemory}) and their two queues with the acquire/release accesses named
 * after the liburing functions they mirror, and the event-loop machinery behind the file API (request slots
 * addressed by user_data, the MPSC hand-over, eventfd wake-ups). Not exported.
 */
package dev.ringfuse.uring.internal;
