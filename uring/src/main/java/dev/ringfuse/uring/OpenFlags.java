package dev.ringfuse.uring;

/**
 * open(2) flags for {@link UringLoop#open} and {@link UringFiles#open}, for the architecture this runs on:
 * x86-64 has the asm-generic values, arm64 its own for O_DIRECT, O_DIRECTORY and O_NOFOLLOW.
 */
public final class OpenFlags {
    private OpenFlags() {}

    private static final boolean ARM64 = "aarch64".equals(System.getProperty("os.arch"));

    /** Open for reading only (the access mode is the low two bits). */
    public static final int O_RDONLY = 0;
    /** Open for writing only. */
    public static final int O_WRONLY = 1;
    /** Open for reading and writing. */
    public static final int O_RDWR = 2;
    /** Create the file if it does not exist, with the mode given to open. */
    public static final int O_CREAT = 0100;
    /** With O_CREAT: fail with EEXIST if the file exists. */
    public static final int O_EXCL = 0200;
    /** Truncate an existing regular file to length 0 (needs write access). */
    public static final int O_TRUNC = 01000;
    /** Every write goes to the end of the file, whatever offset it names. */
    public static final int O_APPEND = 02000;
    /** Each write returns only once its data (not necessarily its metadata) is on stable storage. */
    public static final int O_DSYNC = 010000;
    /** Bypass the page cache: buffers, offsets and lengths must be aligned to the logical block size. */
    public static final int O_DIRECT = ARM64 ? 0200000 : 040000;
    /** Fail with ENOTDIR unless the path is a directory. */
    public static final int O_DIRECTORY = ARM64 ? 040000 : 0200000;
    /** Fail with ELOOP if the last path component is a symlink. */
    public static final int O_NOFOLLOW = ARM64 ? 0100000 : 0400000;
    /** Close the descriptor on exec (the JDK starts processes with fork/exec). */
    public static final int O_CLOEXEC = 02000000;
}
