package dev.ringfuse.lowlevel;

/**
 * File attributes as the kernel caches them. Times are seconds and nanoseconds since the epoch;
 * {@code mode} includes the type bits ({@code S_IFREG}, ...).
 */
public record Attr(long ino, int mode, int nlink, int uid, int gid, int rdev, long size, long blocks, int blksize,
                   long atimeSec, int atimeNsec, long mtimeSec, int mtimeNsec, long ctimeSec, int ctimeNsec,
                   long btimeSec, int btimeNsec) {

    public static final int S_IFMT = 0170000;
    public static final int S_IFSOCK = 0140000;
    public static final int S_IFLNK = 0120000;
    public static final int S_IFREG = 0100000;
    public static final int S_IFBLK = 0060000;
    public static final int S_IFDIR = 0040000;
    public static final int S_IFCHR = 0020000;
    public static final int S_IFIFO = 0010000;

    /** True if this is a directory. */
    public boolean isDirectory() { return (mode & S_IFMT) == S_IFDIR; }

    /** True if this is a regular file. */
    public boolean isRegularFile() { return (mode & S_IFMT) == S_IFREG; }
}
