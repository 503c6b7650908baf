package dev.ringfuse.lowlevel;

/**
 * A directory entry as a reply to lookup and the creating calls: the node id the kernel will use for the
 * name, its generation (node id and generation together must be unique for the life of the filesystem
 * when it is exported over NFS), its attributes and how long the kernel may cache the name and the
 * attributes. A non-zero node id adds one to its lookup count.
 */
public record Entry(long nodeid, long generation, Attr attr, long entryTimeoutNanos, long attrTimeoutNanos) {
}
