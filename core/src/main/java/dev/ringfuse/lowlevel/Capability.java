package dev.ringfuse.lowlevel;

/**
 * INIT capabilities a filesystem may choose; each row carries its bit in the 64-bit flags word
 * (bits 32 and up travel in flags2). The session negotiates only those the kernel offers.
 */
public enum Capability {
    /** Reads may be sent asynchronously (readahead in parallel). */
    ASYNC_READ(0),
    /** The filesystem implements POSIX record locks (getlk/setlk); else the kernel keeps them locally. */
    POSIX_LOCKS(1),
    /** O_TRUNC is handled by open, not by a separate setattr. */
    ATOMIC_O_TRUNC(3),
    /** Lookups of "." and ".." may arrive (NFS export). */
    EXPORT_SUPPORT(4),
    /** The kernel does not apply the umask; the filesystem applies {@link RequestContext#umask()}. */
    DONT_MASK(6),
    /** The filesystem implements flock(2) locks; else the kernel keeps them locally. */
    FLOCK_LOCKS(10),
    /** ioctl on directories. */
    IOCTL_DIR(11),
    /** The kernel drops cached data when it sees mtime or size change. */
    AUTO_INVAL_DATA(12),
    /** readdirplus. */
    READDIRPLUS(13),
    /** The kernel chooses between readdir and readdirplus adaptively. */
    READDIRPLUS_AUTO(14),
    /** Asynchronous direct I/O. */
    ASYNC_DIO(15),
    /** The kernel caches writes and sends them later; it owns size and mtime. */
    WRITEBACK_CACHE(16),
    /** Lookups and readdir in one directory may run in parallel. */
    PARALLEL_DIROPS(18),
    /** The filesystem clears suid/sgid on write, chown and truncate (v1). */
    HANDLE_KILLPRIV(19),
    /** The kernel enforces POSIX ACLs from the system.posix_acl_* xattrs. */
    POSIX_ACL(20),
    /** read(/dev/fuse) returns ECONNABORTED instead of ENODEV after an abort. */
    ABORT_ERROR(21),
    /** Symlink targets are cached in the page cache. */
    CACHE_SYMLINKS(23),
    /** Readdir results are not cached across opens unless asked (no readdir caching invalidation). */
    NO_OPENDIR_SUPPORT(24),
    /** Cached data is dropped only on explicit invalidation. */
    EXPLICIT_INVAL_DATA(25),
    /** The filesystem clears suid/sgid (v2: per request flags). */
    HANDLE_KILLPRIV_V2(28),
    /** setxattr carries setxattr_flags. */
    SETXATTR_EXT(29),
    /** Direct I/O files may still be mmap'ed. */
    DIRECT_IO_ALLOW_MMAP(36),
    /** Kernel passthrough of reads and writes to a backing file. */
    PASSTHROUGH(37),
    /** Explicitly refuse NFS export. */
    NO_EXPORT_SUPPORT(38),
    /** The kernel may resend requests after a NOTIFY_RESEND. */
    HAS_RESEND(39),
    /** Idmapped mounts. */
    ALLOW_IDMAP(40),
    /** Requests through FUSE-over-io_uring queues. Chosen by the session from the transport option. */
    OVER_IO_URING(41);

    private final int bit;

    Capability(int bit) {
        this.bit = bit;
    }

    /** Bit number in the 64-bit INIT flags word. */
    public int bit() { return bit; }

    /** The mask in the 64-bit INIT flags word. */
    public long mask() { return 1L << bit; }
}
