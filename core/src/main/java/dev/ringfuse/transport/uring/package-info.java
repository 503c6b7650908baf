/**
 * The FUSE-over-io_uring transport (Linux 6.14+): {@link dev.ringfuse.transport.uring.UringTransport} owns
 * one queue per possible CPU, each a pinned platform thread with its own SQE128 ring and registered
 * entries, committing replies with COMMIT_AND_FETCH. Internal.
 */
package dev.ringfuse.transport.uring;
