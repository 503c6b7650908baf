package dev.ringfuse.lowlevel;

/**
 * A directory entry as a reply to lookup and the creating calls: the node id the kernel will use for the
 * name, its generation (node id and generation together must be unique for the life of the filesystem
 * when it is exported over NFS), its attributes and how long the kernel may cache the name and the
 * attributes. A non-zero node id adds one to its lookup count.
 *
 * @param nodeid            the node id; 0 answers a lookup with "no such name", cached for entryTimeoutNanos
 * @param generation        the node id's generation: raise it when a node id is reused
 * @param attr              the node's attributes
 * @param entryTimeoutNanos how long the kernel may cache the name (0: ask again every time)
 * @param attrTimeoutNanos  how long the kernel may cache the attributes
 */
public record Entry(long nodeid, long generation, Attr attr, long entryTimeoutNanos, long attrTimeoutNanos) {
}
