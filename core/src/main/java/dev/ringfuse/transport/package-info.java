/**
 * Transports move requests between the kernel and the session. {@link dev.ringfuse.transport.DevFuseTransport}
 * reads /dev/fuse on several platform threads, each on its own cloned descriptor (each clone has its own
 * processing queue, so a reply goes back on the descriptor that read the request), into pooled,
 * page-aligned buffers sized for max_write. Internal.
 */
package dev.ringfuse.transport;
