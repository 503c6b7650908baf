/**
 * Block I/O: the {@link dev.ringfuse.pool.io.BlockDevice} contract (aligned reads and writes, flush), the
 * io_uring + O_DIRECT backend for image files and block devices, the in-memory and power-cut test devices,
 * and {@link dev.ringfuse.pool.io.BlockIo}: compression, checksums, ditto copies and verified reads with
 * per-device error counters.
 */
package dev.ringfuse.pool.io;
