package dev.ringfuse.fs;

import dev.ringfuse.lowlevel.Attr;

/**
 * The attributes of one file, as {@link PathFileSystem#getattr} fills them in: a small mutable holder with
 * fluent setters, so a filesystem sets only what it knows ({@code new FileStat().mode(S_IFREG | 0644).size(n)}).
 * Fields not set are zero, except {@code nlink} (1) and {@code blksize} (4096). An {@code ino} of 0 lets the
 * adapter use its node id as the inode number. Times are seconds and nanoseconds since the epoch.
 */
public final class FileStat {
    public static final int S_IFMT = Attr.S_IFMT, S_IFSOCK = Attr.S_IFSOCK, S_IFLNK = Attr.S_IFLNK,
            S_IFREG = Attr.S_IFREG, S_IFBLK = Attr.S_IFBLK, S_IFDIR = Attr.S_IFDIR, S_IFCHR = Attr.S_IFCHR,
            S_IFIFO = Attr.S_IFIFO;

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

    public FileStat ino(long v) { ino = v; return this; }
    public FileStat mode(int v) { mode = v; return this; }
    public FileStat nlink(int v) { nlink = v; return this; }
    public FileStat uid(int v) { uid = v; return this; }
    public FileStat gid(int v) { gid = v; return this; }
    public FileStat rdev(int v) { rdev = v; return this; }
    public FileStat size(long v) { size = v; return this; }
    /** 512-byte blocks allocated; if never set, derived from the size. */
    public FileStat blocks(long v) { blocks = v; return this; }
    public FileStat blksize(int v) { blksize = v; return this; }
    public FileStat atime(long sec, int nsec) { atimeSec = sec; atimeNsec = nsec; return this; }
    public FileStat mtime(long sec, int nsec) { mtimeSec = sec; mtimeNsec = nsec; return this; }
    public FileStat ctime(long sec, int nsec) { ctimeSec = sec; ctimeNsec = nsec; return this; }
    public FileStat btime(long sec, int nsec) { btimeSec = sec; btimeNsec = nsec; return this; }

    public long ino() { return ino; }
    public int mode() { return mode; }
    public int nlink() { return nlink; }
    public int uid() { return uid; }
    public int gid() { return gid; }
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
