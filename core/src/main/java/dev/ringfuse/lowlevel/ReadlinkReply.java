package dev.ringfuse.lowlevel;

/** Answers readlink. */
public interface ReadlinkReply extends Reply {
    /** Answers with the link target. */
    void target(String target);

    /** Answers with the link target as raw bytes. */
    void target(byte[] target);
}
