package dev.ringfuse.lowlevel;

/**
 * Answers readdirplus: entries with their attributes. Every entry added with a non-zero node id, other
 * than "." and "..", adds one to that node's lookup count once the reply is sent.
 */
public interface DirPlusReply extends Reply {
    /**
     * Adds one entry; pass an {@link Entry} with node id 0 to list a name without instantiating it.
     *
     * @return false if it did not fit (not added, no lookup counted)
     */
    boolean add(String name, Entry entry, long nextOffset);

    /** Sends the entries added so far. */
    void send();
}
