package dev.ringfuse.lowlevel;

/** Answers bmap (fuseblk only). */
public interface BmapReply extends Reply {
    /** Answers with the device block. */
    void block(long block);
}
