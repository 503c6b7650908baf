package dev.ringfuse.kernel;

/**
 * One row per FUSE opcode: its number, the size of its fixed input struct, how many NUL-terminated names
 * follow, the shape of its reply, whether it is answered at all, and the protocol minor that introduced
 * it. The decoder and the transports read these rows; nothing else switches on raw opcode numbers.
 */
public enum Opcode {
    LOOKUP(1, 0, 1, ReplyKind.ENTRY, 1),
    FORGET(2, Off.SIZEOF_FORGET_IN, 0, ReplyKind.NONE, 1),
    GETATTR(3, Off.SIZEOF_GETATTR_IN, 0, ReplyKind.ATTR, 9),
    SETATTR(4, Off.SIZEOF_SETATTR_IN, 0, ReplyKind.ATTR, 1),
    READLINK(5, 0, 0, ReplyKind.DATA, 1),
    SYMLINK(6, 0, 2, ReplyKind.ENTRY, 1),
    MKNOD(8, Off.SIZEOF_MKNOD_IN, 1, ReplyKind.ENTRY, 12),
    MKDIR(9, Off.SIZEOF_MKDIR_IN, 1, ReplyKind.ENTRY, 1),
    UNLINK(10, 0, 1, ReplyKind.STATUS, 1),
    RMDIR(11, 0, 1, ReplyKind.STATUS, 1),
    RENAME(12, Off.SIZEOF_RENAME_IN, 2, ReplyKind.STATUS, 1),
    LINK(13, Off.SIZEOF_LINK_IN, 1, ReplyKind.ENTRY, 1),
    OPEN(14, Off.SIZEOF_OPEN_IN, 0, ReplyKind.OPEN, 1),
    READ(15, Off.SIZEOF_READ_IN, 0, ReplyKind.DATA, 1),
    WRITE(16, Off.SIZEOF_WRITE_IN, 0, ReplyKind.WRITE, 1),
    STATFS(17, 0, 0, ReplyKind.STATFS, 1),
    RELEASE(18, Off.SIZEOF_RELEASE_IN, 0, ReplyKind.STATUS, 1),
    FSYNC(20, Off.SIZEOF_FSYNC_IN, 0, ReplyKind.STATUS, 1),
    /** 8 bytes unless SETXATTR_EXT was negotiated, then 16: the decoder adjusts. */
    SETXATTR(21, 8, 1, ReplyKind.STATUS, 1),
    GETXATTR(22, Off.SIZEOF_GETXATTR_IN, 1, ReplyKind.XATTR, 1),
    LISTXATTR(23, Off.SIZEOF_GETXATTR_IN, 0, ReplyKind.XATTR, 1),
    REMOVEXATTR(24, 0, 1, ReplyKind.STATUS, 1),
    FLUSH(25, Off.SIZEOF_FLUSH_IN, 0, ReplyKind.STATUS, 7),
    INIT(26, Off.SIZEOF_INIT_IN, 0, ReplyKind.INIT, 1),
    OPENDIR(27, Off.SIZEOF_OPEN_IN, 0, ReplyKind.OPEN, 1),
    READDIR(28, Off.SIZEOF_READ_IN, 0, ReplyKind.DATA, 1),
    RELEASEDIR(29, Off.SIZEOF_RELEASE_IN, 0, ReplyKind.STATUS, 1),
    FSYNCDIR(30, Off.SIZEOF_FSYNC_IN, 0, ReplyKind.STATUS, 1),
    GETLK(31, Off.SIZEOF_LK_IN, 0, ReplyKind.LOCK, 7),
    SETLK(32, Off.SIZEOF_LK_IN, 0, ReplyKind.STATUS, 7),
    SETLKW(33, Off.SIZEOF_LK_IN, 0, ReplyKind.STATUS, 7),
    ACCESS(34, Off.SIZEOF_ACCESS_IN, 0, ReplyKind.STATUS, 5),
    CREATE(35, Off.SIZEOF_CREATE_IN, 1, ReplyKind.CREATE, 5),
    /** Answered only with EAGAIN (original not seen yet) or ENOSYS; otherwise never. */
    INTERRUPT(36, Off.SIZEOF_INTERRUPT_IN, 0, ReplyKind.NONE, 7),
    BMAP(37, Off.SIZEOF_BMAP_IN, 0, ReplyKind.BMAP, 7),
    DESTROY(38, 0, 0, ReplyKind.STATUS, 7),
    IOCTL(39, Off.SIZEOF_IOCTL_IN, 0, ReplyKind.IOCTL, 11),
    POLL(40, Off.SIZEOF_POLL_IN, 0, ReplyKind.POLL, 11),
    /** The kernel's answer to a RETRIEVE notification. */
    NOTIFY_REPLY(41, Off.SIZEOF_NOTIFY_RETRIEVE_IN, 0, ReplyKind.NONE, 15),
    BATCH_FORGET(42, Off.SIZEOF_BATCH_FORGET_IN, 0, ReplyKind.NONE, 16),
    FALLOCATE(43, Off.SIZEOF_FALLOCATE_IN, 0, ReplyKind.STATUS, 19),
    READDIRPLUS(44, Off.SIZEOF_READ_IN, 0, ReplyKind.DATA, 21),
    RENAME2(45, Off.SIZEOF_RENAME2_IN, 2, ReplyKind.STATUS, 23),
    LSEEK(46, Off.SIZEOF_LSEEK_IN, 0, ReplyKind.LSEEK, 24),
    COPY_FILE_RANGE(47, Off.SIZEOF_COPY_FILE_RANGE_IN, 0, ReplyKind.WRITE, 28),
    /** virtiofs DAX only: answered ENOSYS. */
    SETUPMAPPING(48, 40, 0, ReplyKind.STATUS, 31),
    /** virtiofs DAX only: answered ENOSYS. */
    REMOVEMAPPING(49, 8, 0, ReplyKind.STATUS, 31),
    SYNCFS(50, Off.SIZEOF_SYNCFS_IN, 0, ReplyKind.STATUS, 34),
    TMPFILE(51, Off.SIZEOF_CREATE_IN, 1, ReplyKind.CREATE, 37),
    STATX(52, Off.SIZEOF_STATX_IN, 0, ReplyKind.STATX, 39),
    COPY_FILE_RANGE_64(53, Off.SIZEOF_COPY_FILE_RANGE_IN, 0, ReplyKind.COUNT64, 45);

    /** The shape of a successful reply. */
    public enum ReplyKind { NONE, STATUS, ENTRY, ATTR, OPEN, CREATE, DATA, WRITE, COUNT64, STATFS, XATTR, LOCK, INIT, BMAP, IOCTL, POLL, LSEEK, STATX }

    private static final Opcode[] BY_CODE = new Opcode[64];

    static {
        for (Opcode o : values()) BY_CODE[o.code] = o;
    }

    private final int code;
    private final int inSize;
    private final int names;
    private final ReplyKind reply;
    private final int minMinor;

    Opcode(int code, int inSize, int names, ReplyKind reply, int minMinor) {
        this.code = code;
        this.inSize = inSize;
        this.names = names;
        this.reply = reply;
        this.minMinor = minMinor;
    }

    public int code() { return code; }

    /** Size of the fixed input struct that follows fuse_in_header (op_in in io_uring mode). */
    public int inSize() { return inSize; }

    /** Number of NUL-terminated names after the fixed struct. */
    public int names() { return names; }

    public ReplyKind reply() { return reply; }

    /** True if the kernel expects no reply at all (FORGET, BATCH_FORGET, NOTIFY_REPLY, INTERRUPT). */
    public boolean noReply() { return reply == ReplyKind.NONE; }

    /** The protocol minor that introduced the opcode. */
    public int minMinor() { return minMinor; }

    /** The row for {@code code}, or null. */
    public static Opcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
