package dev.ringfuse.lowlevel;

/**
 * File attributes as the kernel caches them. Times are seconds and nanoseconds since the epoch;
 * {@code mode} includes the type bits ({@code S_IFREG}, ...).
 *
 * @param ino       the inode number shown by stat(2) (not the FUSE node id)
 * @param mode      type bits ({@link #S_IFMT}) and permission bits (07777)
 * @param nlink     the number of names (a directory: 2 plus its subdirectories)
 * @param uid       the owner
 * @param gid       the group
 * @param rdev      the device number of a device node, else 0
 * @param size      the length in bytes (a symlink: the length of its target)
 * @param blocks    the space used, in 512-byte units
 * @param blksize   the preferred I/O size; 0 lets the kernel choose
 * @param atimeSec  last access, seconds
 * @param atimeNsec last access, nanoseconds (0 to 999,999,999)
 * @param mtimeSec  last modification of the content, seconds
 * @param mtimeNsec last modification, nanoseconds
 * @param ctimeSec  last change of the content or the attributes, seconds
 * @param ctimeNsec last change, nanoseconds
 * @param btimeSec  creation (birth) time, seconds, reported by statx; 0 when unknown
 * @param btimeNsec creation time, nanoseconds
 */
public record Attr(long ino, int mode, int nlink, int uid, int gid, int rdev, long size, long blocks, int blksize,
                   long atimeSec, int atimeNsec, long mtimeSec, int mtimeNsec, long ctimeSec, int ctimeNsec,
                   long btimeSec, int btimeNsec) {

    /** The type bits of {@code mode}: {@code mode & S_IFMT} is one of the S_IF* values below. */
    public static final int S_IFMT = 0170000;
    /** Type: a Unix domain socket. */
    public static final int S_IFSOCK = 0140000;
    /** Type: a symbolic link. */
    public static final int S_IFLNK = 0120000;
    /** Type: a regular file. */
    public static final int S_IFREG = 0100000;
    /** Type: a block device. */
    public static final int S_IFBLK = 0060000;
    /** Type: a directory. */
    public static final int S_IFDIR = 0040000;
    /** Type: a character device. */
    public static final int S_IFCHR = 0020000;
    /** Type: a named pipe (fifo). */
    public static final int S_IFIFO = 0010000;

    /** True if this is a directory. */
    public boolean isDirectory() { return (mode & S_IFMT) == S_IFDIR; }

    /** True if this is a regular file. */
    public boolean isRegularFile() { return (mode & S_IFMT) == S_IFREG; }
}
