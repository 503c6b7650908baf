package dev.ringfuse.uring.internal;

/** Symbolic names for the errno values io_uring operations commonly return (x86-64/arm64 generic numbering). */
public final class Errno {
    private Errno() {}

    public static final int EPERM = 1, ENOENT = 2, EINTR = 4, EIO = 5, ENXIO = 6, EBADF = 9, EAGAIN = 11,
            ENOMEM = 12, EACCES = 13, EFAULT = 14, EBUSY = 16, EEXIST = 17, EXDEV = 18, ENODEV = 19,
            ENOTDIR = 20, EISDIR = 21, EINVAL = 22, ENFILE = 23, EMFILE = 24, EFBIG = 27, ENOSPC = 28,
            ESPIPE = 29, EROFS = 30, EPIPE = 32, ERANGE = 34, ENAMETOOLONG = 36, ENOSYS = 38, ENOTEMPTY = 39,
            ELOOP = 40, ETIME = 62, EOVERFLOW = 75, EOPNOTSUPP = 95, EALREADY = 114, ETIMEDOUT = 110,
            ECANCELED = 125;

    /** "ENOENT" for 2; "errno 1234" for anything not in the table. */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM"; case ENOENT -> "ENOENT"; case EINTR -> "EINTR"; case EIO -> "EIO";
            case ENXIO -> "ENXIO"; case EBADF -> "EBADF"; case EAGAIN -> "EAGAIN"; case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES"; case EFAULT -> "EFAULT"; case EBUSY -> "EBUSY"; case EEXIST -> "EEXIST";
            case EXDEV -> "EXDEV"; case ENODEV -> "ENODEV"; case ENOTDIR -> "ENOTDIR"; case EISDIR -> "EISDIR";
            case EINVAL -> "EINVAL"; case ENFILE -> "ENFILE"; case EMFILE -> "EMFILE"; case EFBIG -> "EFBIG";
            case ENOSPC -> "ENOSPC"; case ESPIPE -> "ESPIPE"; case EROFS -> "EROFS"; case EPIPE -> "EPIPE";
            case ERANGE -> "ERANGE"; case ENAMETOOLONG -> "ENAMETOOLONG"; case ENOSYS -> "ENOSYS";
            case ENOTEMPTY -> "ENOTEMPTY"; case ELOOP -> "ELOOP"; case ETIME -> "ETIME";
            case EOVERFLOW -> "EOVERFLOW"; case EOPNOTSUPP -> "EOPNOTSUPP"; case EALREADY -> "EALREADY";
            case ETIMEDOUT -> "ETIMEDOUT"; case ECANCELED -> "ECANCELED";
            default -> "errno " + errno;
        };
    }
}
