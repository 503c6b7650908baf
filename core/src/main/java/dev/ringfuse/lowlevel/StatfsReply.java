package dev.ringfuse.lowlevel;

/** Answers statfs. */
public interface StatfsReply extends Reply {
    /** Answers with filesystem statistics. */
    void statfs(StatFs statfs);
}
