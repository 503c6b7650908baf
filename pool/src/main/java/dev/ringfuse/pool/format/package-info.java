/**
 * Byte codecs of every on-disk structure of the pool format (DESIGN.md): device labels (config block +
 * uberblock ring), uberblocks, block pointers with their DVAs, checksums and compression, the MOS block.
 * Pure: bytes in, records out; bad bytes become {@link dev.ringfuse.pool.format.FormatException}.
 */
package dev.ringfuse.pool.format;
