package dev.ringfuse.testkit.internal;

/**
 * The fields of statx(2) the scenarios assert on. Times are nanoseconds since the epoch.
 *
 * @param mode   file type and permission bits
 * @param rdev   device number of a device node, as {@code makedev(major, minor)}
 */
public record Stat(int mode, long ino, long nlink, int uid, int gid, long size, long blocks, int blksize,
                   long atimeNs, long mtimeNs, long ctimeNs, int rdevMajor, int rdevMinor, int devMajor, int devMinor) {
    public static final int S_IFMT = 0170000, S_IFREG = 0100000, S_IFDIR = 040000, S_IFLNK = 0120000,
            S_IFIFO = 010000, S_IFCHR = 020000, S_IFBLK = 060000, S_IFSOCK = 0140000;

    /** The file type bits. */
    public int type() { return mode & S_IFMT; }

    /** The permission bits including setuid, setgid and sticky. */
    public int perms() { return mode & 07777; }
}
