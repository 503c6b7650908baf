package dev.ringfuse.lowlevel;

/** Answers statx; {@code ENOSYS} makes the kernel fall back to getattr for the life of the mount. */
public interface StatxReply extends Reply {
    /** Answers with {@code attr}; {@code mask} names the STATX_* fields that are valid. */
    void statx(Attr attr, int mask, long timeoutNanos);
}
