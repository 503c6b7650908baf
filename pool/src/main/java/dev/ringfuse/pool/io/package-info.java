/**
 * Block I/O: the {@link dev.ringfuse.pool.io.BlockDevice} contract (aligned reads and writes, flush), the
 * io_uring + O_DIRECT backend for image files and block devices, the in-memory and power-cut test devices,
 * {@link dev.ringfuse.pool.io.MirrorDevice} (sides written together, read side by side with repair, a resilver
 * target), {@link dev.ringfuse.pool.io.BlockIo}: compression, checksums, ditto copies and verified reads with
 * per-device error counters, and {@link dev.ringfuse.pool.io.Healing}: rewriting bad copies, the per-block work
 * of scrub and resilver. Reads off the pool lock: read-ahead ({@code BlockIo.AheadWindow}) and a read's own
 * fetch ({@link dev.ringfuse.pool.io.BlockIo.Fetch}) start device reads whose blocks are checked on arrival
 * and claimed later, under the lock, only against the pointer the file then holds.
 */
package dev.ringfuse.pool.io;
