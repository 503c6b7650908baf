package dev.ringfuse.access;

import java.util.Objects;

/**
 * What a permission check is about: one inode's mode (with its S_IFMT type bits), owner and group.
 *
 * @param mode  type and permission bits as stat reports them
 * @param uid   the owner
 * @param gid   the group
 * @param extra further access entries (a POSIX ACL), {@link ExtendedAccess#NONE} if there are none
 */
public record Subject(int mode, int uid, int gid, ExtendedAccess extra) {
    static final int S_IFMT = 0170000, S_IFDIR = 0040000, S_IFREG = 0100000;

    /** @throws NullPointerException if {@code extra} is null (use {@link ExtendedAccess#NONE}) */
    public Subject {
        Objects.requireNonNull(extra);
    }

    /**
     * A subject with the mode bits only, no ACL.
     *
     * @param mode type and permission bits
     * @param uid  the owner
     * @param gid  the group
     */
    public Subject(int mode, int uid, int gid) {
        this(mode, uid, gid, ExtendedAccess.NONE);
    }

    /** @return whether the type bits say directory (search permission is then "x") */
    public boolean isDirectory() { return (mode & S_IFMT) == S_IFDIR; }

    /** @return whether the type bits say regular file */
    public boolean isRegular() { return (mode & S_IFMT) == S_IFREG; }
}
