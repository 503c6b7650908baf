package dev.ringfuse;

/**
 * Linux error numbers (x86-64 and arm64 share them). A filesystem answers a request with one of these;
 * the kernel hands it to the caller as {@code -1/errno}.
 */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    ESRCH(3, "No such process"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "I/O error"),
    ENXIO(6, "No such device or address"),
    E2BIG(7, "Argument list too long"),
    ENOEXEC(8, "Exec format error"),
    EBADF(9, "Bad file descriptor"),
    ECHILD(10, "No child processes"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    ENOTBLK(15, "Block device required"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    EXDEV(18, "Invalid cross-device link"),
    ENODEV(19, "No such device"),
    ENOTDIR(20, "Not a directory"),
    EISDIR(21, "Is a directory"),
    EINVAL(22, "Invalid argument"),
    ENFILE(23, "Too many open files in system"),
    EMFILE(24, "Too many open files"),
    ENOTTY(25, "Inappropriate ioctl for device"),
    ETXTBSY(26, "Text file busy"),
    EFBIG(27, "File too large"),
    ENOSPC(28, "No space left on device"),
    ESPIPE(29, "Illegal seek"),
    EROFS(30, "Read-only file system"),
    EMLINK(31, "Too many links"),
    EPIPE(32, "Broken pipe"),
    EDOM(33, "Numerical argument out of domain"),
    ERANGE(34, "Numerical result out of range"),
    EDEADLK(35, "Resource deadlock avoided"),
    ENAMETOOLONG(36, "File name too long"),
    ENOLCK(37, "No locks available"),
    ENOSYS(38, "Function not implemented"),
    ENOTEMPTY(39, "Directory not empty"),
    ELOOP(40, "Too many levels of symbolic links"),
    ENOMSG(42, "No message of desired type"),
    ENODATA(61, "No data available"),
    ETIME(62, "Timer expired"),
    EOVERFLOW(75, "Value too large for defined data type"),
    EBADFD(77, "File descriptor in bad state"),
    EILSEQ(84, "Invalid or incomplete multibyte or wide character"),
    EUSERS(87, "Too many users"),
    ENOTSOCK(88, "Socket operation on non-socket"),
    EOPNOTSUPP(95, "Operation not supported"),
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    EADDRINUSE(98, "Address already in use"),
    ENETDOWN(100, "Network is down"),
    ECONNABORTED(103, "Software caused connection abort"),
    ECONNRESET(104, "Connection reset by peer"),
    ENOBUFS(105, "No buffer space available"),
    ENOTCONN(107, "Transport endpoint is not connected"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    EALREADY(114, "Operation already in progress"),
    EINPROGRESS(115, "Operation now in progress"),
    ESTALE(116, "Stale file handle"),
    EDQUOT(122, "Disk quota exceeded"),
    ECANCELED(125, "Operation canceled"),
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
