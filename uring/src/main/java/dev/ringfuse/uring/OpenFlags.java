package dev.ringfuse.uring;

/** open(2) flags for {@link UringLoop#open} and {@link UringFiles#open} (Linux generic values, x86-64/arm64). */
public final class OpenFlags {
    private OpenFlags() {}

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0100;
    public static final int O_EXCL = 0200;
    public static final int O_TRUNC = 01000;
    public static final int O_APPEND = 02000;
    public static final int O_DSYNC = 010000;
    /** Bypass the page cache: buffers, offsets and lengths must be aligned to the logical block size. */
    public static final int O_DIRECT = 040000;
    public static final int O_DIRECTORY = 0200000;
    public static final int O_NOFOLLOW = 0400000;
    public static final int O_CLOEXEC = 02000000;
}
