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
    /**
     * What a filesystem that does not implement statfs reports, as libfuse does: no blocks, no inodes, 512-byte
     * blocks, 255-byte names. An error there (ENOSYS) would make `df` with no arguments fail for every mount on the
     * machine, and `stat -f` of the mount.
     */
    public static final StatFs UNKNOWN = new StatFs(0, 0, 0, 0, 0, 512, 255, 512);
}
