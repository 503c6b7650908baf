package dev.ringfuse.uring;

/**
 * io_uring operation codes ({@code enum io_uring_op}), one row per opcode, named as in C without the
 * {@code IORING_OP_} prefix. Whether the running kernel supports one is answered by {@link Features#supports}.
 */
public enum Opcode {
    /** Does nothing; completes with 0. */
    NOP(0),
    /** readv(2). */
    READV(1),
    /** writev(2). */
    WRITEV(2),
    /** fsync(2), or fdatasync(2) with IORING_FSYNC_DATASYNC. */
    FSYNC(3),
    /** read(2) into a registered buffer. */
    READ_FIXED(4),
    /** write(2) from a registered buffer. */
    WRITE_FIXED(5),
    /** Waits for poll(2) events on a descriptor. */
    POLL_ADD(6),
    /** Cancels a POLL_ADD. */
    POLL_REMOVE(7),
    /** sync_file_range(2). */
    SYNC_FILE_RANGE(8),
    /** sendmsg(2). */
    SENDMSG(9),
    /** recvmsg(2). */
    RECVMSG(10),
    /** A timer, or a wait for a number of completions. */
    TIMEOUT(11),
    /** Cancels or updates a TIMEOUT. */
    TIMEOUT_REMOVE(12),
    /** accept4(2). */
    ACCEPT(13),
    /** Cancels an in-flight request by its user_data. */
    ASYNC_CANCEL(14),
    /** A timeout for the linked request before it. */
    LINK_TIMEOUT(15),
    /** connect(2). */
    CONNECT(16),
    /** fallocate(2). */
    FALLOCATE(17),
    /** openat(2). */
    OPENAT(18),
    /** close(2), or of a registered (direct) descriptor. */
    CLOSE(19),
    /** Updates slots of the registered file table. */
    FILES_UPDATE(20),
    /** statx(2). */
    STATX(21),
    /** pread(2) into a plain buffer. */
    READ(22),
    /** pwrite(2) from a plain buffer. */
    WRITE(23),
    /** posix_fadvise(2). */
    FADVISE(24),
    /** madvise(2). */
    MADVISE(25),
    /** send(2). */
    SEND(26),
    /** recv(2). */
    RECV(27),
    /** openat2(2). */
    OPENAT2(28),
    /** epoll_ctl(2). */
    EPOLL_CTL(29),
    /** splice(2). */
    SPLICE(30),
    /** Hands buffers to the kernel for buffer selection. */
    PROVIDE_BUFFERS(31),
    /** Takes back buffers given with PROVIDE_BUFFERS. */
    REMOVE_BUFFERS(32),
    /** tee(2). */
    TEE(33),
    /** shutdown(2). */
    SHUTDOWN(34),
    /** renameat2(2). */
    RENAMEAT(35),
    /** unlinkat(2). */
    UNLINKAT(36),
    /** mkdirat(2). */
    MKDIRAT(37),
    /** symlinkat(2). */
    SYMLINKAT(38),
    /** linkat(2). */
    LINKAT(39),
    /** Posts a completion to another ring. */
    MSG_RING(40),
    /** fsetxattr(2). */
    FSETXATTR(41),
    /** setxattr(2). */
    SETXATTR(42),
    /** fgetxattr(2). */
    FGETXATTR(43),
    /** getxattr(2). */
    GETXATTR(44),
    /** socket(2). */
    SOCKET(45),
    /** A driver command (FUSE-over-io_uring registers and commits with it). */
    URING_CMD(46),
    /** send(2) without copying the data. */
    SEND_ZC(47),
    /** sendmsg(2) without copying the data. */
    SENDMSG_ZC(48),
    /** Repeated reads into selected buffers, one completion each. */
    READ_MULTISHOT(49),
    /** waitid(2). */
    WAITID(50),
    /** futex(2) FUTEX_WAIT. */
    FUTEX_WAIT(51),
    /** futex(2) FUTEX_WAKE. */
    FUTEX_WAKE(52),
    /** futex_waitv(2). */
    FUTEX_WAITV(53),
    /** Turns a registered descriptor into a normal one. */
    FIXED_FD_INSTALL(54),
    /** ftruncate(2) (Linux 6.9+). */
    FTRUNCATE(55);

    private static final Opcode[] BY_CODE = new Opcode[256];

    static {
        for (Opcode op : values()) BY_CODE[op.code] = op;
    }

    private final int code;

    Opcode(int code) {
        this.code = code;
    }

    /** The kernel's numeric opcode, as written to {@code sqe->opcode}. */
    public int code() {
        return code;
    }

    /** The row for a numeric opcode, or {@code null} if this binding does not name it. */
    public static Opcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** The operation name for exceptions: the enum name, or {@code "OP_<n>"} for unnamed codes. */
    public static String nameOf(int code) {
        Opcode op = of(code);
        return op == null ? "OP_" + code : op.name();
    }
}
