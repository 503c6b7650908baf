package dev.ringfuse.lowlevel;

/** Answers getlk with the conflicting lock, or one of type F_UNLCK if none conflicts. */
public interface LockReply extends Reply {
    /** Answers with {@code lock}. */
    void lock(FileLock lock);
}
