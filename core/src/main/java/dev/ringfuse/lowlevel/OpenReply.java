package dev.ringfuse.lowlevel;

/** Answers open and opendir with a file handle and FOPEN_* flags ({@link OpenFlags}). */
public interface OpenReply extends Reply {
    /** Answers with the handle {@code fh} that later requests on this open file carry. */
    void open(long fh, int openFlags);

    /**
     * Answers with a kernel passthrough backing file ({@link Notifier#openBacking}); adds
     * {@link OpenFlags#PASSTHROUGH} to {@code openFlags}.
     */
    void open(long fh, int openFlags, int backingId);
}
