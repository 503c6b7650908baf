package dev.ringfuse.lowlevel;

/**
 * A POSIX record lock: bytes {@code start..end} inclusive ({@code end} = {@link #TO_EOF} for "to the end"),
 * {@code type} F_RDLCK (0), F_WRLCK (1) or F_UNLCK (2), and the owning process id.
 */
public record FileLock(long start, long end, int type, int pid) {
    public static final int F_RDLCK = 0;
    public static final int F_WRLCK = 1;
    public static final int F_UNLCK = 2;
    public static final long TO_EOF = Long.MAX_VALUE;
}
