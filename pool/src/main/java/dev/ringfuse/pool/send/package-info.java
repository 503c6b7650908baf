/** Replication: `send` writes a snapshot (or the changes between two) as a checksummed stream; `receive` applies one. */
package dev.ringfuse.pool.send;
