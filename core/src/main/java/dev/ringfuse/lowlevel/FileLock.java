package dev.ringfuse.lowlevel;

/**
 * A POSIX record lock: bytes {@code start..end} inclusive ({@code end} = {@link #TO_EOF} for "to the end"),
 * {@code type} F_RDLCK (0), F_WRLCK (1) or F_UNLCK (2), and the owning process id.
 *
 * @param start the first byte locked
 * @param end   the last byte locked, inclusive, or {@link #TO_EOF}
 * @param type  {@link #F_RDLCK}, {@link #F_WRLCK} or {@link #F_UNLCK}
 * @param pid   the process holding the lock (as the kernel reports it to F_GETLK), or 0
 */
public record FileLock(long start, long end, int type, int pid) {
    /** A read (shared) lock: any number may overlap. */
    public static final int F_RDLCK = 0;
    /** A write (exclusive) lock: overlaps no other lock. */
    public static final int F_WRLCK = 1;
    /** No lock: the answer to a test that found no conflict, or a request to unlock. */
    public static final int F_UNLCK = 2;
    /** The {@code end} of a lock that reaches the end of the file, however long it grows. */
    public static final long TO_EOF = Long.MAX_VALUE;
}
