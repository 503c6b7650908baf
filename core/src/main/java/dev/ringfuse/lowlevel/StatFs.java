package dev.ringfuse.lowlevel;

/**
 * Filesystem statistics for statfs(2): counts in blocks of {@code frsize} bytes, and inodes.
 *
 * @param blocks  the size of the filesystem, in frsize units
 * @param bfree   free blocks
 * @param bavail  free blocks that unprivileged users may use (at most bfree)
 * @param files   inodes in all
 * @param ffree   free inodes
 * @param bsize   the preferred I/O size
 * @param namelen the longest name, in bytes (255 on most filesystems)
 * @param frsize  the unit of the block counts
 */
public record StatFs(long blocks, long bfree, long bavail, long files, long ffree, int bsize, int namelen,
                     int frsize) {
}
