package dev.ringfuse.lowlevel;

/** FOPEN_* flags a filesystem returns from open, opendir and create. */
public final class OpenFlags {
    /** Bypass the page cache for this open file. */
    public static final int DIRECT_IO = 1;
    /** Keep cached data from earlier opens. */
    public static final int KEEP_CACHE = 1 << 1;
    /** The file is not seekable. */
    public static final int NONSEEKABLE = 1 << 2;
    /** Cache directory contents (opendir). */
    public static final int CACHE_DIR = 1 << 3;
    /** A stream: no file position. */
    public static final int STREAM = 1 << 4;
    /** Do not send FLUSH on close. */
    public static final int NOFLUSH = 1 << 5;
    /** Allow parallel direct writes to the same file. */
    public static final int PARALLEL_DIRECT_WRITES = 1 << 6;
    /** Reads and writes go to a backing file in the kernel. */
    public static final int PASSTHROUGH = 1 << 7;

    private OpenFlags() {}
}
