package dev.ringfuse.kernel;

/** Protocol constants of fuse_kernel.h 7.45 that are not struct layouts or opcodes. */
public final class Fuse {
    private Fuse() {}

    public static final int KERNEL_VERSION = 7;
    public static final int KERNEL_MINOR_VERSION = 45;
    /** The minimum minor ringfuse accepts: STATX, passthrough and the 7.36 init_in need no less. */
    public static final int MIN_MINOR = 31;
    public static final long ROOT_ID = 1;
    public static final long UNIQUE_RESEND = 1L << 63;

    /** The minimum read buffer for /dev/fuse. */
    public static final int MIN_READ_BUFFER = 8192;

    // INIT flags (64-bit word; bits 32+ go in flags2)
    public static final long INIT_EXT = 1L << 30;
    public static final long MAX_PAGES = 1L << 22;
    public static final long BIG_WRITES = 1L << 5;
    public static final long NO_OPEN_SUPPORT = 1L << 17;
    public static final long NO_OPENDIR_SUPPORT = 1L << 24;
    public static final long OVER_IO_URING = 1L << 41;
    public static final long PASSTHROUGH = 1L << 37;

    // request flags
    public static final int GETATTR_FH = 1;
    public static final int READ_LOCKOWNER = 2;
    public static final int RELEASE_FLUSH = 1;
    public static final int RELEASE_FLOCK_UNLOCK = 2;
    public static final int FSYNC_FDATASYNC = 1;
    public static final int LK_FLOCK = 1;
    public static final int POLL_SCHEDULE_NOTIFY = 1;
    public static final int IOCTL_UNRESTRICTED = 2;

    // notification codes
    public static final int NOTIFY_POLL = 1;
    public static final int NOTIFY_INVAL_INODE = 2;
    public static final int NOTIFY_INVAL_ENTRY = 3;
    public static final int NOTIFY_STORE = 4;
    public static final int NOTIFY_RETRIEVE = 5;
    public static final int NOTIFY_DELETE = 6;
    public static final int NOTIFY_RESEND = 7;
    public static final int NOTIFY_INC_EPOCH = 8;
    public static final int NOTIFY_PRUNE = 9;
    public static final int EXPIRE_ONLY = 1;

    // /dev/fuse ioctls (x86-64 and arm64)
    public static final long DEV_IOC_CLONE = 0x8004E500L;
    public static final long DEV_IOC_BACKING_OPEN = 0x4010E501L;
    public static final long DEV_IOC_BACKING_CLOSE = 0x4004E502L;
    public static final long DEV_IOC_SYNC_INIT = 0xE503L;

    // FUSE-over-io_uring commands
    public static final int URING_CMD_REGISTER = 1;
    public static final int URING_CMD_COMMIT_AND_FETCH = 2;

    /** Directory entry name limit the kernel accepts. */
    public static final int NAME_MAX_KERNEL = 1024;
}
