package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Node id → source inode. Every inode the kernel holds has one O_PATH descriptor, which pins the source
 * inode (so its number cannot be reused while the kernel may still name it) and is the anchor of every
 * fd-relative call. Inodes are keyed by (st_dev, st_ino): a second name of the same file (hard link, a
 * lookup after a rename) finds the same node. Node ids are the source inode numbers for files on the
 * source's own device, so they stay the same after the kernel drops its cache and looks a file up again
 * (what NFS export needs); files on other devices mounted below the source get ids from a counter with the
 * top bit set, which no inode number uses.
 */
final class Inodes {
    record Key(long dev, long ino) {}

    static final class Inode {
        final long nodeid;
        final Key key;
        /** O_PATH | O_NOFOLLOW descriptor of the source inode; closed when the kernel forgets the node. */
        final int fd;
        /** S_IFMT bits. */
        final int type;
        /** Kernel lookups; guarded by the table. */
        long lookups;
        /** Kernel passthrough backing id shared by all open files of this inode, and its users; guarded by this. */
        int backingId;
        int backingUsers;

        Inode(long nodeid, Key key, int fd, int type) {
            this.nodeid = nodeid;
            this.key = key;
            this.fd = fd;
            this.type = type;
        }

        /** "/proc/self/fd/N": names exactly this inode for the calls that have no fd or *at form. */
        String procPath() {
            return "/proc/self/fd/" + fd;
        }
    }

    private final ConcurrentHashMap<Long, Inode> byId = new ConcurrentHashMap<>();
    private final Map<Key, Inode> byKey = new HashMap<>();
    private final long rootDev;
    private long nextForeign = Long.MIN_VALUE + 1;
    final Inode root;

    Inodes(int rootFd, Key rootKey) {
        this.rootDev = rootKey.dev();
        this.root = new Inode(LowLevelFileSystem.ROOT_ID, rootKey, rootFd, 0040000);
        root.lookups = 1;
        byId.put(root.nodeid, root);
        byKey.put(rootKey, root);
    }

    /** The inode of node {@code nodeid}; ESTALE once forgotten. */
    Inode get(long nodeid) {
        Inode n = byId.get(nodeid);
        if (n == null) throw new FuseException(Errno.ESTALE);
        return n;
    }

    /** Whether the table knows this source inode (for lookups of ".." that must stay inside). */
    synchronized Inode find(Key key) {
        return byKey.get(key);
    }

    /**
     * Adds one lookup to the node of {@code key}, making it with descriptor {@code fd} if new. The table
     * takes {@code fd}: it is closed here when the node already exists.
     */
    synchronized Inode ref(Key key, int fd, int type) {
        Inode n = byKey.get(key);
        if (n != null) {
            if (fd != n.fd) PosixCalls.close(fd);
        } else {
            long id = key.dev() == rootDev && key.ino() > LowLevelFileSystem.ROOT_ID ? key.ino() : nextForeign++;
            n = new Inode(id, key, fd, type);
            byKey.put(key, n);
            byId.put(id, n);
        }
        n.lookups++;
        return n;
    }

    synchronized void forget(long nodeid, long count) {
        Inode n = byId.get(nodeid);
        if (n == null || n == root) return;
        n.lookups -= count;
        if (n.lookups > 0) return;
        byId.remove(nodeid);
        byKey.remove(n.key);
        PosixCalls.close(n.fd);
    }

    /** Closes every descriptor but the root's (session end). */
    synchronized void clear() {
        for (Inode n : byId.values()) if (n != root) PosixCalls.close(n.fd);
        byId.clear();
        byKey.clear();
        byId.put(root.nodeid, root);
        byKey.put(root.key, root);
    }
}
