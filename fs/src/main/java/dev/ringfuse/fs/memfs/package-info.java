/**
 * memfs: an in-memory filesystem that behaves like tmpfs, on ringfuse's low-level inode API.
 *
 * <p>Mount it with {@code Fuse.mount(dir, new MemFs(), MountOptions.defaults())}; configure capacity,
 * inode count, cache timeouts, chunk size and the writeback cache with {@link dev.ringfuse.fs.memfs.MemFs.Options}.
 *
 * <p>Concepts:
 * <ul>
 *   <li><b>Inodes.</b> Every file is an inode whose number is also its FUSE node id; numbers are never
 *       reused. An inode lives while a directory entry links it or the kernel holds a lookup reference
 *       (which it does while the file is open), so unlinked open files and O_TMPFILE files work.</li>
 *   <li><b>Chunks.</b> File bytes are kept sparse and off the Java heap: a map from chunk index to a slot of
 *       mmap'd memory with per-page bits (allocated, written); freed pages go back to the kernel at once. Holes
 *       cost nothing, appends touch only the last chunk, and SEEK_DATA/SEEK_HOLE report what is held.</li>
 *   <li><b>Cookies.</b> Each directory entry carries a readdir cookie from an increasing counter, so a
 *       listing resumes correctly however the directory changes meanwhile.</li>
 *   <li><b>Locks.</b> A read-write content lock per inode plus a rename lock, taken in one written-down
 *       order ({@code Namespace}); metadata sits under each inode's monitor, a leaf lock.</li>
 *   <li><b>Capacity.</b> Space and inodes are reserved before use; running out is ENOSPC, as on tmpfs.</li>
 * </ul>
 * Record locks and flock are left to the kernel, and permission checks to {@code default_permissions}.
 * The decisions and the differences from tmpfs are in {@code fs/DESIGN.md}.
 */
package dev.ringfuse.fs.memfs;
