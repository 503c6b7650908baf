package dev.ringfuse.fs.memfs;

import dev.ringfuse.lowlevel.Attr;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One file of any type. Its node id is its inode number: numbers are never reused within one
 * {@link MemFs}, so a node id stays unique without a generation bump (the generation only tells apart
 * instances, see {@link InodeTable}).
 *
 * <p><b>Locks</b>, in the order they are taken (see also {@link Namespace}):
 * <ol>
 *   <li>{@link #content}: a directory's entries or a file's bytes; symlinks and special files have no
 *       content but the lock exists so every node looks the same.</li>
 *   <li>the object monitor ({@code synchronized}): the metadata fields below. A leaf: nothing else is
 *       acquired while holding it, and it is held only for a few field reads or writes.</li>
 * </ol>
 */
abstract sealed class Inode permits FileNode, DirNode, SymlinkNode, SpecialNode {
    final long ino;
    final ReentrantReadWriteLock content = new ReentrantReadWriteLock();
    final XattrMap xattrs = new XattrMap();
    /** The S_IFMT bits, fixed for life (the kernel marks an inode bad if they change), so read without locks. */
    private final int type;
    private final Timespec btime;

    // guarded by this
    private int mode;
    private int uid;
    private int gid;
    private int nlink;
    private long lookups;
    private Timespec atime;
    private Timespec mtime;
    private Timespec ctime;

    Inode(long ino, int mode, int uid, int gid, int nlink) {
        this.ino = ino;
        this.type = mode & Attr.S_IFMT;
        this.mode = mode;
        this.uid = uid;
        this.gid = gid;
        this.nlink = nlink;
        Timespec now = Timespec.now();
        this.btime = atime = mtime = ctime = now;
    }

    /** File size as stat reports it. */
    abstract long size();

    /** Bytes of memory held for the contents, reported as st_blocks. */
    long allocated() { return 0; }

    int rdev() { return 0; }

    /** Gives back the memory of the contents once the inode is gone for good. */
    void free(Limits limits) {
        limits.release(xattrs.clear());
    }

    final int type() { return type; }

    final boolean isDir() { return type() == Attr.S_IFDIR; }

    synchronized Attr attr() {
        return new Attr(ino, mode, nlink, uid, gid, rdev(), size(), (allocated() + 511) / 512, ChunkStore.PAGE,
                atime.sec(), atime.nsec(), mtime.sec(), mtime.nsec(), ctime.sec(), ctime.nsec(),
                btime.sec(), btime.nsec());
    }

    synchronized int mode() { return mode; }

    /**
     * Mode, owner, group and access ACL for a permission check, read together. The ACL is read only when the
     * kernel's check_acl would consult it (the mode has group bits).
     */
    synchronized dev.ringfuse.access.Subject subject() {
        byte[] acl = (mode & 070) != 0 ? xattrs.getOrNull(dev.ringfuse.access.PosixAcl.ACCESS) : null;
        return acl == null ? new dev.ringfuse.access.Subject(mode, uid, gid)
                : new dev.ringfuse.access.Subject(mode, uid, gid, dev.ringfuse.access.PosixAcl.access(acl, uid, gid));
    }

    synchronized int uid() { return uid; }

    synchronized int gid() { return gid; }

    synchronized int nlink() { return nlink; }

    /** Keeps the type bits; only permission, suid, sgid and sticky bits change. */
    synchronized void chmod(int newMode) { mode = (mode & Attr.S_IFMT) | (newMode & 07777); }

    synchronized void chown(int newUid, int newGid) {
        uid = newUid;
        gid = newGid;
    }

    /**
     * Drops the privileges a file grants when it changes (HANDLE_KILLPRIV_V2, see DESIGN.md). The kernel's
     * flag says only that the caller lacks CAP_FSETID (it comes with every such write and truncate, and with
     * every chown): suid goes; sgid goes when group-executable or when the caller is outside the file's group
     * (supplementary groups count, root counts as a member), as tmpfs's file_remove_privs decides. Also for
     * the changes the kernel sends no flag with (fallocate, copy_file_range by a caller other than root).
     */
    void killPrivileges(java.util.function.BooleanSupplier callerInGroup, ChunkStore.Space space) {
        synchronized (this) {
            mode = dev.ringfuse.access.Permissions.killedMode(mode, callerInGroup);
        }
        xattrs.removeIfPresent(XattrMap.SECURITY_CAPABILITY, space);
    }

    synchronized void addLinks(int delta) { nlink += delta; }

    synchronized void setLinks(int n) { nlink = n; }

    synchronized void lookedUp() { lookups++; }

    /** Drops {@code n} lookups; true if nothing refers to the inode any more. */
    synchronized boolean forget(long n) {
        lookups = Math.max(0, lookups - n);
        return unreferenced();
    }

    synchronized boolean unreferenced() { return lookups == 0 && nlink == 0; }

    synchronized void times(Timespec a, Timespec m, Timespec c) {
        if (a != null) atime = a;
        if (m != null) mtime = m;
        if (c != null) ctime = c;
    }

    /** The inode changed (chmod, chown, link count, xattrs, rename). */
    void changed(Timespec now) { times(null, null, now); }

    /** The contents changed (write, truncate, entries added or removed). */
    void modified(Timespec now) { times(null, now, now); }

    /**
     * relatime, as tmpfs mounts by default: atime moves only if it is older than mtime or ctime, or a day old.
     * Keeps reads from writing metadata on every call.
     */
    synchronized void accessed(Timespec now) {
        if (!atime.isAfter(mtime) || !atime.isAfter(ctime) || now.sec() - atime.sec() >= 24 * 3600) atime = now;
    }
}
