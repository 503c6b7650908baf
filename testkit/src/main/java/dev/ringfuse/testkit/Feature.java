package dev.ringfuse.testkit;

/**
 * Optional features a filesystem may claim. A scenario that needs one runs only when the filesystem under
 * test claims it ({@link ScenarioContext#claims}); a claimed feature must then pass. Scenarios that need
 * something of the machine rather than of the filesystem (root, a tool) probe for it instead.
 */
public enum Feature {
    /** user.* extended attributes. */
    XATTR,
    /** fallocate(2) modes 0 (extends the size), KEEP_SIZE and PUNCH_HOLE (frees the blocks of the range). */
    FALLOCATE,
    /**
     * fallocate(2) reserves the blocks it is asked for (st_blocks covers the range). Copy-on-write filesystems
     * (ZFS, the pool) claim {@link #FALLOCATE} without it: a rewrite takes new blocks anyway, so they only
     * check for space.
     */
    PREALLOCATE,
    /** lseek(2) SEEK_DATA / SEEK_HOLE reporting real holes. */
    SEEK_HOLE,
    /** Sparse files: holes take no space (st_blocks stays small). */
    SPARSE,
    /** O_TMPFILE. */
    TMPFILE,
    /** POSIX record locks shared between processes (fcntl F_SETLK / F_GETLK). */
    POSIX_LOCKS,
    /** flock(2) between processes. */
    FLOCK,
    /** Device nodes, fifos and sockets via mknod(2). */
    SPECIAL_FILES,
    /** O_DIRECT opens. */
    DIRECT_IO,
    /** Hard links. */
    HARD_LINKS,
    /** renameat2 RENAME_EXCHANGE. */
    RENAME_EXCHANGE,
    /** Ownership and permission checks for other users (needs root to switch users). */
    MULTI_USER,
    /** POSIX ACLs: system.posix_acl_access/default enforced, kept in step with the mode, inherited. */
    POSIX_ACL
}
