package dev.ringfuse.lowlevel;

/** Answers with a directory entry (lookup, mknod, mkdir, symlink, link). A non-zero node id adds one to its lookup count. */
public interface EntryReply extends Reply {
    /** Answers with {@code entry}; the kernel adds one to the lookup count of {@code entry.nodeid()}. */
    void entry(Entry entry);

    /** A negative entry: "no such name", cached for {@code timeoutNanos} (lookup only). Adds no lookup. */
    void negative(long timeoutNanos);
}
