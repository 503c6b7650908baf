package dev.ringfuse.lowlevel;

/**
 * The changes a setattr request asks for; {@code valid} is a set of FATTR_* bits saying which fields
 * carry a value. Times use {@link #atimeNow()} / {@link #mtimeNow()} for "set to the current time".
 *
 * @param valid     FATTR_* bits: which of the other components carry a value
 * @param fh        the open file the change came through (with {@link #FATTR_FH})
 * @param size      the new length (with {@link #FATTR_SIZE})
 * @param lockOwner the caller's lock owner (with {@link #FATTR_LOCKOWNER})
 * @param atimeSec  the new access time, seconds (with {@link #FATTR_ATIME})
 * @param atimeNsec the new access time, nanoseconds
 * @param mtimeSec  the new modification time, seconds (with {@link #FATTR_MTIME})
 * @param mtimeNsec the new modification time, nanoseconds
 * @param ctimeSec  the change time, seconds (with {@link #FATTR_CTIME})
 * @param ctimeNsec the change time, nanoseconds
 * @param mode      the new mode; only the permission bits (07777) count (with {@link #FATTR_MODE})
 * @param uid       the new owner (with {@link #FATTR_UID})
 * @param gid       the new group (with {@link #FATTR_GID})
 */
public record SetAttr(int valid, long fh, long size, long lockOwner, long atimeSec, int atimeNsec,
                      long mtimeSec, int mtimeNsec, long ctimeSec, int ctimeNsec, int mode, int uid, int gid) {
    /** {@code mode} carries new permission bits (chmod). */
    public static final int FATTR_MODE = 1;
    /** {@code uid} carries a new owner (chown). */
    public static final int FATTR_UID = 1 << 1;
    /** {@code gid} carries a new group (chown, chgrp). */
    public static final int FATTR_GID = 1 << 2;
    /** {@code size} carries a new length (truncate, ftruncate, O_TRUNC). */
    public static final int FATTR_SIZE = 1 << 3;
    /** {@code atimeSec}/{@code atimeNsec} carry a new access time. */
    public static final int FATTR_ATIME = 1 << 4;
    /** {@code mtimeSec}/{@code mtimeNsec} carry a new modification time. */
    public static final int FATTR_MTIME = 1 << 5;
    /** {@code fh} names the open file the change was made through (ftruncate, fchmod). */
    public static final int FATTR_FH = 1 << 6;
    /** Set the access time to the filesystem's current time (utimensat UTIME_NOW). */
    public static final int FATTR_ATIME_NOW = 1 << 7;
    /** Set the modification time to the filesystem's current time (utimensat UTIME_NOW). */
    public static final int FATTR_MTIME_NOW = 1 << 8;
    /** {@code lockOwner} carries the lock owner of the caller (truncate with mandatory locks). */
    public static final int FATTR_LOCKOWNER = 1 << 9;
    /** {@code ctimeSec}/{@code ctimeNsec} carry the change time the kernel chose. */
    public static final int FATTR_CTIME = 1 << 10;
    /**
     * Clear the set-user-ID and set-group-ID bits as part of this change (a truncate by a
     * non-owner; with the handle-killpriv-v2 capability).
     */
    public static final int FATTR_KILL_SUIDGID = 1 << 11;

    /** @return whether {@link #mode()} is to be applied. */
    public boolean hasMode() { return (valid & FATTR_MODE) != 0; }

    /** @return whether {@link #uid()} is to be applied. */
    public boolean hasUid() { return (valid & FATTR_UID) != 0; }

    /** @return whether {@link #gid()} is to be applied. */
    public boolean hasGid() { return (valid & FATTR_GID) != 0; }

    /** @return whether {@link #size()} is to be applied. */
    public boolean hasSize() { return (valid & FATTR_SIZE) != 0; }

    /** @return whether the access time is to be set to {@link #atimeSec()}/{@link #atimeNsec()}. */
    public boolean hasAtime() { return (valid & FATTR_ATIME) != 0; }

    /** @return whether the modification time is to be set to {@link #mtimeSec()}/{@link #mtimeNsec()}. */
    public boolean hasMtime() { return (valid & FATTR_MTIME) != 0; }

    /** @return whether the change time is to be set to {@link #ctimeSec()}/{@link #ctimeNsec()}. */
    public boolean hasCtime() { return (valid & FATTR_CTIME) != 0; }

    /** @return whether {@link #fh()} names the open file the change came through. */
    public boolean hasFh() { return (valid & FATTR_FH) != 0; }

    /** @return whether the access time is to be set to now. */
    public boolean atimeNow() { return (valid & FATTR_ATIME_NOW) != 0; }

    /** @return whether the modification time is to be set to now. */
    public boolean mtimeNow() { return (valid & FATTR_MTIME_NOW) != 0; }

    /** @return whether the set-user-ID and set-group-ID bits are to be cleared. */
    public boolean killSuidGid() { return (valid & FATTR_KILL_SUIDGID) != 0; }
}
