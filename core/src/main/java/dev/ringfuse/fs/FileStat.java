package dev.ringfuse.fs;

import dev.ringfuse.lowlevel.Attr;

/**
 * The attributes of one file, as {@link PathFileSystem#getattr} fills them in: a small mutable holder with
 * fluent setters, so a filesystem sets only what it knows ({@code new FileStat().mode(S_IFREG | 0644).size(n)}).
 * Fields not set are zero, except {@code nlink} (1) and {@code blksize} (4096). An {@code ino} of 0 lets the
 * adapter use its node id as the inode number. Times are seconds and nanoseconds since the epoch.
 */
public final class FileStat {
    /** The type bits of a mode ({@link Attr#S_IFMT}). */
    public static final int S_IFMT = Attr.S_IFMT;
    /** Type: a Unix domain socket. */
    public static final int S_IFSOCK = Attr.S_IFSOCK;
    /** Type: a symbolic link. */
    public static final int S_IFLNK = Attr.S_IFLNK;
    /** Type: a regular file. */
    public static final int S_IFREG = Attr.S_IFREG;
    /** Type: a block device. */
    public static final int S_IFBLK = Attr.S_IFBLK;
    /** Type: a directory. */
    public static final int S_IFDIR = Attr.S_IFDIR;
    /** Type: a character device. */
    public static final int S_IFCHR = Attr.S_IFCHR;
    /** Type: a named pipe (fifo). */
    public static final int S_IFIFO = Attr.S_IFIFO;

    private long ino;
    private int mode;
    private int nlink = 1;
    private int uid;
    private int gid;
    private int rdev;
    private long size;
    private long blocks = -1;
    private int blksize = 4096;
    private long atimeSec, mtimeSec, ctimeSec, btimeSec;
    private int atimeNsec, mtimeNsec, ctimeNsec, btimeNsec;

    /** An empty stat: every field zero, except nlink 1 and blksize 4096; blocks follow the size. */
    public FileStat() {}

    /** Sets the inode number stat(2) shows; 0 (the default) lets the adapter use the node id. */
    public FileStat ino(long v) { ino = v; return this; }
    /** Sets type and permission bits, e.g. {@code S_IFREG | 0644}; without type bits the kernel rejects the reply. */
    public FileStat mode(int v) { mode = v; return this; }
    /** Sets the number of names (default 1; a directory has 2 plus its subdirectories). */
    public FileStat nlink(int v) { nlink = v; return this; }
    /** Sets the owner. */
    public FileStat uid(int v) { uid = v; return this; }
    /** Sets the group. */
    public FileStat gid(int v) { gid = v; return this; }
    /** Sets the device number of a device node ({@code makedev(major, minor)}). */
    public FileStat rdev(int v) { rdev = v; return this; }
    /** Sets the length in bytes; a symlink's is the length of its target. */
    public FileStat size(long v) { size = v; return this; }
    /** Sets the 512-byte blocks allocated; if never set, derived from the size (no holes). */
    public FileStat blocks(long v) { blocks = v; return this; }
    /** Sets the preferred I/O size (default 4096). */
    public FileStat blksize(int v) { blksize = v; return this; }
    /** Sets the last access time. */
    public FileStat atime(long sec, int nsec) { atimeSec = sec; atimeNsec = nsec; return this; }
    /** Sets the last modification time of the content. */
    public FileStat mtime(long sec, int nsec) { mtimeSec = sec; mtimeNsec = nsec; return this; }
    /** Sets the last change time of content or attributes. */
    public FileStat ctime(long sec, int nsec) { ctimeSec = sec; ctimeNsec = nsec; return this; }
    /** Sets the creation time, reported by statx(2) (0: unknown). */
    public FileStat btime(long sec, int nsec) { btimeSec = sec; btimeNsec = nsec; return this; }

    /** @return the inode number set, or 0 for "the node id" */
    public long ino() { return ino; }
    /** @return type and permission bits */
    public int mode() { return mode; }
    /** @return the number of names */
    public int nlink() { return nlink; }
    /** @return the owner */
    public int uid() { return uid; }
    /** @return the group */
    public int gid() { return gid; }
    /** @return the length in bytes */
    public long size() { return size; }

    /** True if the type bits say directory. */
    public boolean isDirectory() { return (mode & S_IFMT) == S_IFDIR; }

    /** The low-level attributes, with {@code fallbackIno} when no inode number was set. */
    public Attr toAttr(long fallbackIno) {
        long b = blocks >= 0 ? blocks : (size + 511) / 512;
        return new Attr(ino != 0 ? ino : fallbackIno, mode, nlink, uid, gid, rdev, size, b, blksize,
                atimeSec, atimeNsec, mtimeSec, mtimeNsec, ctimeSec, ctimeNsec, btimeSec, btimeNsec);
    }
}
