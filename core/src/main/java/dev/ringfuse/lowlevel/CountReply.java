package dev.ringfuse.lowlevel;

/** Answers write and copy_file_range with a byte count. */
public interface CountReply extends Reply {
    /** Answers that {@code count} bytes were written or copied. */
    void count(long count);
}
