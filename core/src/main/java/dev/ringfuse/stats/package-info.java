/**
 * Live statistics of a mount: {@link dev.ringfuse.stats.RequestStats} counts every answered request by
 * opcode (count, errors, bytes, latency histogram; lock-free, no allocation per request) and
 * {@link dev.ringfuse.stats.StatsSocket} serves a text snapshot of them on a unix-domain socket named after
 * the mount's device number, readable only by the mount's owner and root, which {@code ringfuse stats}
 * reads. Internal; exported to the command line only.
 */
package dev.ringfuse.stats;
