package dev.ringfuse.lowlevel;

/** Answers lseek (SEEK_DATA / SEEK_HOLE). */
public interface LseekReply extends Reply {
    /** Answers with the resulting offset. */
    void offset(long offset);
}
