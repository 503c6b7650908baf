/**
 * The /dev/fuse transport: {@link dev.ringfuse.transport.dev.DevFuseTransport} reads /dev/fuse on several
 * platform threads, each on its own cloned descriptor (each clone has its own processing queue, so a reply
 * goes back on the descriptor that read the request), into pooled, page-aligned buffers sized for
 * max_write. Reader 0 also serves as the control channel (INIT, FORGET, INTERRUPT, notifications) when
 * another transport carries the requests. Internal.
 */
package dev.ringfuse.transport.dev;
