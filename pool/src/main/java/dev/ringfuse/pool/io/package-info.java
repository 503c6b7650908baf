/**
 * Block I/O: the {@link dev.ringfuse.pool.io.BlockDevice} contract (aligned reads and writes, flush), the
 * io_uring + O_DIRECT backend for image files and block devices, the in-memory and power-cut test devices,
 * {@link dev.ringfuse.pool.io.MirrorDevice} (sides written together, read side by side with repair, a resilver
 * target), {@link dev.ringfuse.pool.io.BlockIo}: compression, checksums, ditto copies and verified reads with
 * per-device error counters, and {@link dev.ringfuse.pool.io.Healing}: rewriting bad copies, the per-block work
 * of scrub and resilver.
 */
package dev.ringfuse.pool.io;
