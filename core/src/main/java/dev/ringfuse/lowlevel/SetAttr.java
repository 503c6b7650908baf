package dev.ringfuse.lowlevel;

/**
 * The changes a setattr request asks for; {@code valid} is a set of FATTR_* bits saying which fields
 * carry a value. Times use {@link #atimeNow()} / {@link #mtimeNow()} for "set to the current time".
 */
public record SetAttr(int valid, long fh, long size, long lockOwner, long atimeSec, int atimeNsec,
                      long mtimeSec, int mtimeNsec, long ctimeSec, int ctimeNsec, int mode, int uid, int gid) {
    public static final int FATTR_MODE = 1;
    public static final int FATTR_UID = 1 << 1;
    public static final int FATTR_GID = 1 << 2;
    public static final int FATTR_SIZE = 1 << 3;
    public static final int FATTR_ATIME = 1 << 4;
    public static final int FATTR_MTIME = 1 << 5;
    public static final int FATTR_FH = 1 << 6;
    public static final int FATTR_ATIME_NOW = 1 << 7;
    public static final int FATTR_MTIME_NOW = 1 << 8;
    public static final int FATTR_LOCKOWNER = 1 << 9;
    public static final int FATTR_CTIME = 1 << 10;
    public static final int FATTR_KILL_SUIDGID = 1 << 11;

    public boolean hasMode() { return (valid & FATTR_MODE) != 0; }
    public boolean hasUid() { return (valid & FATTR_UID) != 0; }
    public boolean hasGid() { return (valid & FATTR_GID) != 0; }
    public boolean hasSize() { return (valid & FATTR_SIZE) != 0; }
    public boolean hasAtime() { return (valid & FATTR_ATIME) != 0; }
    public boolean hasMtime() { return (valid & FATTR_MTIME) != 0; }
    public boolean hasCtime() { return (valid & FATTR_CTIME) != 0; }
    public boolean hasFh() { return (valid & FATTR_FH) != 0; }
    public boolean atimeNow() { return (valid & FATTR_ATIME_NOW) != 0; }
    public boolean mtimeNow() { return (valid & FATTR_MTIME_NOW) != 0; }
    public boolean killSuidGid() { return (valid & FATTR_KILL_SUIDGID) != 0; }
}
