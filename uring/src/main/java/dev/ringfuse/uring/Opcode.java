package dev.ringfuse.uring;

/**
 * io_uring operation codes ({@code enum io_uring_op}), one row per opcode, named as in C without the
 * {@code IORING_OP_} prefix. Whether the running kernel supports one is answered by {@link Features#supports}.
 */
public enum Opcode {
    NOP(0), READV(1), WRITEV(2), FSYNC(3), READ_FIXED(4), WRITE_FIXED(5), POLL_ADD(6), POLL_REMOVE(7),
    SYNC_FILE_RANGE(8), SENDMSG(9), RECVMSG(10), TIMEOUT(11), TIMEOUT_REMOVE(12), ACCEPT(13), ASYNC_CANCEL(14),
    LINK_TIMEOUT(15), CONNECT(16), FALLOCATE(17), OPENAT(18), CLOSE(19), FILES_UPDATE(20), STATX(21), READ(22),
    WRITE(23), FADVISE(24), MADVISE(25), SEND(26), RECV(27), OPENAT2(28), EPOLL_CTL(29), SPLICE(30),
    PROVIDE_BUFFERS(31), REMOVE_BUFFERS(32), TEE(33), SHUTDOWN(34), RENAMEAT(35), UNLINKAT(36), MKDIRAT(37),
    SYMLINKAT(38), LINKAT(39), MSG_RING(40), FSETXATTR(41), SETXATTR(42), FGETXATTR(43), GETXATTR(44),
    SOCKET(45), URING_CMD(46), SEND_ZC(47), SENDMSG_ZC(48), READ_MULTISHOT(49), WAITID(50), FUTEX_WAIT(51),
    FUTEX_WAKE(52), FUTEX_WAITV(53), FIXED_FD_INSTALL(54), FTRUNCATE(55);

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
