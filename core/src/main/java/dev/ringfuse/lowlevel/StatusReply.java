package dev.ringfuse.lowlevel;

/** Answers requests whose only reply is success or an errno. */
public interface StatusReply extends Reply {
    /** Answers success. */
    void ok();
}
