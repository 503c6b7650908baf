package dev.ringfuse;

/**
 * Linux error numbers (x86-64 and arm64 share them). A filesystem answers a request with one of these;
 * the kernel hands it to the caller as {@code -1/errno}.
 */
public enum Errno {
    /** 1: Operation not permitted. */
    EPERM(1, "Operation not permitted"),
    /** 2: No such file or directory. */
    ENOENT(2, "No such file or directory"),
    /** 3: No such process. */
    ESRCH(3, "No such process"),
    /** 4: Interrupted system call. */
    EINTR(4, "Interrupted system call"),
    /** 5: I/O error. */
    EIO(5, "I/O error"),
    /** 6: No such device or address. */
    ENXIO(6, "No such device or address"),
    /** 7: Argument list too long. */
    E2BIG(7, "Argument list too long"),
    /** 8: Exec format error. */
    ENOEXEC(8, "Exec format error"),
    /** 9: Bad file descriptor. */
    EBADF(9, "Bad file descriptor"),
    /** 10: No child processes. */
    ECHILD(10, "No child processes"),
    /** 11: Resource temporarily unavailable. */
    EAGAIN(11, "Resource temporarily unavailable"),
    /** 12: Cannot allocate memory. */
    ENOMEM(12, "Cannot allocate memory"),
    /** 13: Permission denied. */
    EACCES(13, "Permission denied"),
    /** 14: Bad address. */
    EFAULT(14, "Bad address"),
    /** 15: Block device required. */
    ENOTBLK(15, "Block device required"),
    /** 16: Device or resource busy. */
    EBUSY(16, "Device or resource busy"),
    /** 17: File exists. */
    EEXIST(17, "File exists"),
    /** 18: Invalid cross-device link. */
    EXDEV(18, "Invalid cross-device link"),
    /** 19: No such device. */
    ENODEV(19, "No such device"),
    /** 20: Not a directory. */
    ENOTDIR(20, "Not a directory"),
    /** 21: Is a directory. */
    EISDIR(21, "Is a directory"),
    /** 22: Invalid argument. */
    EINVAL(22, "Invalid argument"),
    /** 23: Too many open files in system. */
    ENFILE(23, "Too many open files in system"),
    /** 24: Too many open files. */
    EMFILE(24, "Too many open files"),
    /** 25: Inappropriate ioctl for device. */
    ENOTTY(25, "Inappropriate ioctl for device"),
    /** 26: Text file busy. */
    ETXTBSY(26, "Text file busy"),
    /** 27: File too large. */
    EFBIG(27, "File too large"),
    /** 28: No space left on device. */
    ENOSPC(28, "No space left on device"),
    /** 29: Illegal seek. */
    ESPIPE(29, "Illegal seek"),
    /** 30: Read-only file system. */
    EROFS(30, "Read-only file system"),
    /** 31: Too many links. */
    EMLINK(31, "Too many links"),
    /** 32: Broken pipe. */
    EPIPE(32, "Broken pipe"),
    /** 33: Numerical argument out of domain. */
    EDOM(33, "Numerical argument out of domain"),
    /** 34: Numerical result out of range. */
    ERANGE(34, "Numerical result out of range"),
    /** 35: Resource deadlock avoided. */
    EDEADLK(35, "Resource deadlock avoided"),
    /** 36: File name too long. */
    ENAMETOOLONG(36, "File name too long"),
    /** 37: No locks available. */
    ENOLCK(37, "No locks available"),
    /** 38: Function not implemented. */
    ENOSYS(38, "Function not implemented"),
    /** 39: Directory not empty. */
    ENOTEMPTY(39, "Directory not empty"),
    /** 40: Too many levels of symbolic links. */
    ELOOP(40, "Too many levels of symbolic links"),
    /** 42: No message of desired type. */
    ENOMSG(42, "No message of desired type"),
    /** 61: No data available. */
    ENODATA(61, "No data available"),
    /** 62: Timer expired. */
    ETIME(62, "Timer expired"),
    /** 75: Value too large for defined data type. */
    EOVERFLOW(75, "Value too large for defined data type"),
    /** 77: File descriptor in bad state. */
    EBADFD(77, "File descriptor in bad state"),
    /** 84: Invalid or incomplete multibyte or wide character. */
    EILSEQ(84, "Invalid or incomplete multibyte or wide character"),
    /** 87: Too many users. */
    EUSERS(87, "Too many users"),
    /** 88: Socket operation on non-socket. */
    ENOTSOCK(88, "Socket operation on non-socket"),
    /** 95: Operation not supported. */
    EOPNOTSUPP(95, "Operation not supported"),
    /** 97: Address family not supported by protocol. */
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    /** 98: Address already in use. */
    EADDRINUSE(98, "Address already in use"),
    /** 100: Network is down. */
    ENETDOWN(100, "Network is down"),
    /** 103: Software caused connection abort. */
    ECONNABORTED(103, "Software caused connection abort"),
    /** 104: Connection reset by peer. */
    ECONNRESET(104, "Connection reset by peer"),
    /** 105: No buffer space available. */
    ENOBUFS(105, "No buffer space available"),
    /** 107: Transport endpoint is not connected. */
    ENOTCONN(107, "Transport endpoint is not connected"),
    /** 110: Connection timed out. */
    ETIMEDOUT(110, "Connection timed out"),
    /** 111: Connection refused. */
    ECONNREFUSED(111, "Connection refused"),
    /** 114: Operation already in progress. */
    EALREADY(114, "Operation already in progress"),
    /** 115: Operation now in progress. */
    EINPROGRESS(115, "Operation now in progress"),
    /** 116: Stale file handle. */
    ESTALE(116, "Stale file handle"),
    /** 122: Disk quota exceeded. */
    EDQUOT(122, "Disk quota exceeded"),
    /** 125: Operation canceled. */
    ECANCELED(125, "Operation canceled"),
    /** 130: Owner died. */
    EOWNERDEAD(130, "Owner died");

    private static final Errno[] BY_CODE = new Errno[256];

    static {
        for (Errno e : values()) BY_CODE[e.code] = e;
    }

    private final int code;
    private final String description;

    Errno(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The positive errno value. */
    public int code() { return code; }

    /** The strerror(3) text. */
    public String description() { return description; }

    /** The constant for a positive errno value, or {@code null} if this enum does not name it. */
    public static Errno of(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** "ENOENT (No such file or directory)", or "errno 123" for values this enum does not name. */
    public static String describe(int code) {
        Errno e = of(code);
        return e == null ? "errno " + code : e.name() + " (" + e.description + ")";
    }
}
