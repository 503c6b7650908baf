/**
 * The transport SPI: {@link dev.ringfuse.transport.Transport} (start, stop, await end, close),
 * {@link dev.ringfuse.transport.Exchange} (one request's buffer and its reply path) and
 * {@link dev.ringfuse.transport.RequestHandler} (the session, as a transport sees it). Implementations live
 * in sub-packages and depend only on this package and the protocol, never on the session:
 * {@code transport.dev} reads /dev/fuse on cloned descriptors, {@code transport.uring} serves
 * FUSE-over-io_uring queues. Internal.
 */
package dev.ringfuse.transport;
