package dev.ringfuse.lowlevel;

/** Answers a restricted ioctl. */
public interface IoctlReply extends Reply {
    /** Answers with the ioctl result and the bytes to copy out (may be empty). */
    void result(int result, byte[] out);
}
