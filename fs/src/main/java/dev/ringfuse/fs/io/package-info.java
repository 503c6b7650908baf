/**
 * File I/O helpers shared by the ready filesystems (not exported): {@link dev.ringfuse.fs.io.ThreadRings}
 * gives each transport thread a private io_uring for reads and writes straight into and out of the
 * request and reply buffers.
 */
package dev.ringfuse.fs.io;
