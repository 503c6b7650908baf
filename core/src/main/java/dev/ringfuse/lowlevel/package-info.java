/**
 * The low-level, inode-based filesystem API.
 *
 * <p>Concepts:
 * <ul>
 *   <li><b>Node ids.</b> The kernel names every file by a 64-bit node id that the filesystem hands out in
 *       an {@link dev.ringfuse.lowlevel.Entry}; the root is {@link LowLevelFileSystem#ROOT_ID} (1). A node id
 *       (with its generation) must stay valid until the kernel has forgotten it.</li>
 *   <li><b>Lookup counts.</b> Every successful reply that carries an {@code Entry} with a non-zero node id
 *       adds one to that node's lookup count (lookup, mknod, mkdir, symlink, link, create, tmpfile and each
 *       readdirplus entry the filesystem added). {@link LowLevelFileSystem#forget} subtracts. When the
 *       connection ends every count is zero.</li>
 *   <li><b>Replies.</b> Every callback but {@code forget} receives a reply handle that must be completed
 *       exactly once, now or later from any thread, also from another thread while the callback still runs.
 *       A second completion throws {@link IllegalStateException}; a handle dropped without completion is
 *       answered {@code EIO} when the garbage collector reclaims it, and logged. Throwing
 *       {@link dev.ringfuse.FuseException} answers its errno; any other throwable is logged and answered
 *       {@code EIO}; in both cases a reply another thread gave first stands (and a later one from it throws).
 *       A reply body filled in place ({@link dev.ringfuse.lowlevel.ReadReply#buffer()},
 *       {@link dev.ringfuse.lowlevel.DirReply#add}) belongs to the thread that fills it: once another thread
 *       took it while the callback runs, the callback can no longer answer (its completion throws
 *       {@link IllegalStateException}, and an exception it throws answers nothing); the filling thread
 *       does.</li>
 *   <li><b>Buffers.</b> A {@link java.lang.foreign.MemorySegment} handed to a callback (write data, xattr
 *       values) is valid only until the reply, wherever the reply comes from (a reply from another thread
 *       ends it while the callback may still run); copy what you keep.</li>
 *   <li><b>Threads.</b> Callbacks run on the transport's threads and may be called concurrently; they
 *       should not block for long unless they reply asynchronously.</li>
 * </ul>
 */
package dev.ringfuse.lowlevel;
