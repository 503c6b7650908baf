package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Node id to inode, and inode lifetime. An inode lives while a name links it or the kernel holds a lookup
 * reference to it; the kernel keeps that reference while the file is open, so an unlinked open file (or
 * an O_TMPFILE) stays readable and writable until its last close and the forget that follows.
 */
final class InodeTable {
    private final ConcurrentHashMap<Long, Inode> nodes = new ConcurrentHashMap<>();
    /** Never reused: node id + generation stay unique for the life of this instance. */
    private final AtomicLong nextIno = new AtomicLong(LowLevelFileSystem.ROOT_ID + 1);
    /**
     * Distinguishes this instance from an earlier one (NFS file handles surviving a restart of the server
     * must go stale, not name a different file that reuses the node id).
     */
    final long generation = System.currentTimeMillis();
    final Limits limits;

    InodeTable(Limits limits) {
        this.limits = limits;
    }

    /** Reserves an inode slot (ENOSPC when full) and returns the new inode's number. */
    long newIno() {
        limits.reserveInode();
        return nextIno.getAndIncrement();
    }

    void add(Inode node) {
        nodes.put(node.ino, node);
    }

    Inode get(long nodeid) {
        Inode n = nodes.get(nodeid);
        if (n == null) throw new FuseException(Errno.ESTALE);
        return n;
    }

    DirNode dir(long nodeid) {
        if (get(nodeid) instanceof DirNode d) return d;
        throw new FuseException(Errno.ENOTDIR);
    }

    FileNode file(long nodeid) {
        Inode n = get(nodeid);
        if (n instanceof FileNode f) return f;
        throw new FuseException(n.isDir() ? Errno.EISDIR : Errno.EINVAL);
    }

    void forget(long nodeid, long nlookup) {
        Inode n = nodes.get(nodeid);
        if (n != null && n.forget(nlookup)) free(n);
    }

    /** Frees {@code n} if no name and no kernel reference is left. */
    void releaseIfUnreferenced(Inode n) {
        if (n.unreferenced()) free(n);
    }

    /** Every lookup count is zero once the connection ends: free what only the kernel kept alive. */
    void forgetAll() {
        for (Inode n : nodes.values()) {
            if (n.ino != LowLevelFileSystem.ROOT_ID && n.forget(Long.MAX_VALUE)) free(n);
        }
    }

    private void free(Inode n) {
        if (n.ino == LowLevelFileSystem.ROOT_ID || nodes.remove(n.ino, n) == false) return;
        n.free(limits);
        limits.releaseInode();
    }
}
