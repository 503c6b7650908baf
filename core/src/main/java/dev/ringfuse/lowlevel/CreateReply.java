package dev.ringfuse.lowlevel;

/** Answers create and tmpfile: an entry (adds one lookup) and an open file handle. */
public interface CreateReply extends Reply {
    /** Answers with the new entry and its open handle. */
    void created(Entry entry, long fh, int openFlags);

    /** As {@link #created(Entry, long, int)} with a kernel passthrough backing id. */
    void created(Entry entry, long fh, int openFlags, int backingId);
}
