package dev.ringfuse.fs.memfs;

import dev.ringfuse.FileNames;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * The directory tree: lookup and every call that adds, removes or moves a name.
 *
 * <p><b>Lock order</b> (never take an earlier lock while holding a later one):
 * <ol>
 *   <li>{@link #renameLock}: held by renames between two directories. It freezes the shape of the tree (no
 *       other call moves a directory), which makes the ancestor tests below and the next rule sound.</li>
 *   <li>directory content locks, ancestor before descendant; two unrelated directories (only a rename
 *       holds two) by node id;</li>
 *   <li>a file's content lock;</li>
 *   <li>inode monitors (leaf locks, see {@link Inode}).</li>
 * </ol>
 * Lookups and readdir take the directory's read lock, so they run in parallel (PARALLEL_DIROPS); changes
 * take its write lock. A lookup reference is counted while the parent's lock is held, so an unlink cannot
 * free a node between being found and being counted.
 */
final class Namespace {
    static final int RENAME_NOREPLACE = 1, RENAME_EXCHANGE = 2, RENAME_WHITEOUT = 4;

    private final InodeTable table;
    private final ReentrantLock renameLock = new ReentrantLock();

    Namespace(InodeTable table) {
        this.table = table;
    }

    static void checkName(String name) {
        if (name.length() > Limits.NAME_MAX / 3 && FileNames.encodedLength(name) > Limits.NAME_MAX) {
            throw new FuseException(Errno.ENAMETOOLONG);
        }
    }

    /** Finds {@code name} and counts a lookup reference on it; null if absent. ".." works too (NFS export). */
    Inode lookup(DirNode dir, String name) {
        checkName(name);
        if (name.equals("..")) return lookupSelf(dir.parent());
        if (name.equals(".")) return lookupSelf(dir);
        Lock l = dir.content.readLock();
        l.lock();
        try {
            Inode n = dir.entries.get(name);
            if (n != null) n.lookedUp();
            return n;
        } finally {
            l.unlock();
        }
    }

    /** A node found by its node id (EXPORT_SUPPORT's "."), counted like any lookup. */
    Inode lookupSelf(Inode n) {
        n.lookedUp();
        return n;
    }

    /**
     * Adds a new node made by {@code factory} (given its inode number) as {@code name}; counts a lookup on it.
     */
    <T extends Inode> T create(DirNode dir, String name, LongFunction<T> factory) {
        checkName(name);
        Lock l = dir.content.writeLock();
        l.lock();
        try {
            checkAlive(dir);
            if (dir.entries.get(name) != null) throw new FuseException(Errno.EEXIST);
            T node = factory.apply(table.newIno());
            table.add(node);
            dir.entries.put(name, node);
            if (node.isDir()) dir.addLinks(1);
            dir.modified(Timespec.now());
            node.lookedUp();
            return node;
        } finally {
            l.unlock();
        }
    }

    /** A new node without a name (O_TMPFILE); lives until the kernel forgets it unless linked. */
    <T extends Inode> T createUnnamed(DirNode dir, LongFunction<T> factory) {
        checkAlive(dir);
        T node = factory.apply(table.newIno());
        table.add(node);
        node.lookedUp();
        return node;
    }

    void link(Inode node, DirNode dir, String name) {
        checkName(name);
        if (node.isDir()) throw new FuseException(Errno.EPERM);
        Lock l = dir.content.writeLock();
        l.lock();
        try {
            checkAlive(dir);
            if (dir.entries.get(name) != null) throw new FuseException(Errno.EEXIST);
            if (node.nlink() == Integer.MAX_VALUE) throw new FuseException(Errno.EMLINK);
            dir.entries.put(name, node);
            node.addLinks(1);
            Timespec now = Timespec.now();
            node.changed(now);
            dir.modified(now);
            node.lookedUp();
        } finally {
            l.unlock();
        }
    }

    /** {@code guard}: the caller's permission checks, null when the kernel made them (default_permissions). */
    void unlink(DirNode dir, String name, Guard guard) {
        remove(dir, name, false, guard);
    }

    void rmdir(DirNode dir, String name, Guard guard) {
        remove(dir, name, true, guard);
    }

    /** unlink and rmdir: the name goes now, the inode once the kernel has forgotten it too. */
    private void remove(DirNode dir, String name, boolean directory, Guard guard) {
        Inode child;
        Lock l = dir.content.writeLock();
        l.lock();
        try {
            child = dir.entries.get(name);
            if (child == null) throw new FuseException(Errno.ENOENT);
            if (guard != null) guard.remove(dir, child);
            if (child.isDir() != directory) throw new FuseException(directory ? Errno.ENOTDIR : Errno.EISDIR);
            if (child instanceof DirNode d) {
                removeEmpty(d);
                dir.addLinks(-1);
            } else {
                child.addLinks(-1);
            }
            dir.entries.remove(name);
            Timespec now = Timespec.now();
            child.changed(now);
            dir.modified(now);
        } finally {
            l.unlock();
        }
        table.releaseIfUnreferenced(child);
    }

    /**
     * Takes an empty directory's links away (ENOTEMPTY if it is not empty), under its lock so that nothing
     * is created in it meanwhile: creation refuses a directory without links.
     */
    private static void removeEmpty(DirNode d) {
        Lock l = d.content.writeLock();
        l.lock();
        try {
            if (!d.entries.isEmpty()) throw new FuseException(Errno.ENOTEMPTY);
            d.setLinks(0);
        } finally {
            l.unlock();
        }
    }

    /**
     * rename(2) and renameat2(2) with RENAME_NOREPLACE, RENAME_EXCHANGE or RENAME_WHITEOUT; for the last,
     * {@code whiteout} makes the node (a 0/0 character device, overlayfs's marker) left at the old name.
     */
    void rename(DirNode from, String name, DirNode to, String newName, int flags, LongFunction<Inode> whiteout,
                Guard guard) {
        if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) != 0
                || ((flags & RENAME_EXCHANGE) != 0 && flags != RENAME_EXCHANGE)) {
            throw new FuseException(Errno.EINVAL);
        }
        checkName(newName);
        boolean cross = from != to;
        if (cross) renameLock.lock();
        Inode replaced = null;
        try {
            DirNode a = !cross || from.isAncestorOf(to) || (!to.isAncestorOf(from) && from.ino < to.ino) ? from : to;
            DirNode b = a == from ? to : from;
            a.content.writeLock().lock();
            try {
                if (cross) b.content.writeLock().lock();
                try {
                    replaced = renameLocked(from, name, to, newName, flags, whiteout, guard);
                } finally {
                    if (cross) b.content.writeLock().unlock();
                }
            } finally {
                a.content.writeLock().unlock();
            }
        } finally {
            if (cross) renameLock.unlock();
        }
        if (replaced != null) table.releaseIfUnreferenced(replaced);
    }

    /** Returns the inode that lost its name, if any. Both parents are write-locked. */
    private Inode renameLocked(DirNode from, String name, DirNode to, String newName, int flags,
                               LongFunction<Inode> whiteout, Guard guard) {
        boolean exchange = (flags & RENAME_EXCHANGE) != 0;
        Inode src = from.entries.get(name);
        if (src == null) throw new FuseException(Errno.ENOENT);
        Inode dst = to.entries.get(newName);
        if (exchange && dst == null) throw new FuseException(Errno.ENOENT);
        if ((flags & RENAME_NOREPLACE) != 0 && dst != null) throw new FuseException(Errno.EEXIST);
        if (guard != null) checkRename(guard, from, src, to, dst, exchange);
        if (src == dst) return null;
        checkAlive(to);
        if (src instanceof DirNode sd && sd.isAncestorOf(to)) throw new FuseException(Errno.EINVAL);
        if (exchange && dst instanceof DirNode dd && dd.isAncestorOf(from)) throw new FuseException(Errno.EINVAL);
        Timespec now = Timespec.now();
        if (exchange) {
            from.entries.put(name, dst);
            to.entries.put(newName, src);
            moved(src, from, to);
            moved(dst, to, from);
            src.changed(now);
            dst.changed(now);
        } else {
            // the whiteout's inode is reserved first, so that ENOSPC changes nothing
            Inode marker = (flags & RENAME_WHITEOUT) != 0 ? whiteout.apply(table.newIno()) : null;
            try {
                if (dst != null) checkReplaceable(src, dst, from);
            } catch (RuntimeException e) {
                if (marker != null) table.limits.releaseInode();
                throw e;
            }
            from.entries.remove(name);
            to.entries.put(newName, src);
            if (marker != null) {
                table.add(marker);
                from.entries.put(name, marker);
            }
            moved(src, from, to);
            src.changed(now);
            if (dst != null && !dst.isDir()) dst.addLinks(-1);
            if (dst != null) dst.changed(now);
        }
        from.modified(now);
        to.modified(now);
        return exchange ? null : dst;
    }

    /** may_rename: both names may go (sticky rules), the target directory may take a name, moved directories may change "..". */
    private static void checkRename(Guard guard, DirNode from, Inode src, DirNode to, Inode dst, boolean exchange) {
        guard.remove(from, src);
        if (dst != null) guard.remove(to, dst);
        else guard.add(to);
        if (from != to) {
            guard.reparent(src);
            if (exchange) guard.reparent(dst);
        }
    }

    /**
     * A directory may replace only an empty directory, which is then removed as by rmdir; anything else may
     * replace only a non-directory.
     */
    private static void checkReplaceable(Inode src, Inode dst, DirNode from) {
        if (src.isDir() && !dst.isDir()) throw new FuseException(Errno.ENOTDIR);
        if (!src.isDir() && dst.isDir()) throw new FuseException(Errno.EISDIR);
        if (dst instanceof DirNode dd) {
            // an ancestor of the source holds it, so it is not empty; locking it here would break the order
            if (dd.isAncestorOf(from)) throw new FuseException(Errno.ENOTEMPTY);
            removeEmpty(dd);
            dd.parent().addLinks(-1);
        }
    }

    /** A directory that changes parent takes its ".." link along. */
    private static void moved(Inode node, DirNode from, DirNode to) {
        if (node instanceof DirNode d && from != to) {
            d.parent(to);
            from.addLinks(-1);
            to.addLinks(1);
        }
    }

    private static void checkAlive(DirNode dir) {
        if (dir.nlink() == 0) throw new FuseException(Errno.ENOENT);
    }
}
