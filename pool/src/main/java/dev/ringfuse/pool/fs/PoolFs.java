package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.OpenFlags;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatFs;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.StatxReply;
import dev.ringfuse.pool.io.ChecksumException;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.QuotaException;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A dataset served as a filesystem. Names are in {@link Names}, bytes in {@link FileData}, inodes in
 * {@link Inodes}; every request runs under the pool lock (correctness first; see DESIGN.md). fsync, fsyncdir
 * and syncfs commit the txg; a timer commits every 5 s, and so does crossing 64 MiB of dirty data.
 */
public final class PoolFs extends PoolFsFiles implements LowLevelFileSystem, AutoCloseable {
    /** Space a new name and inode may take (B-tree entries), checked against quotas before creating one. */
    private static final long NEW_NODE_BYTES = 512;
    private ScheduledExecutorService timer;
    private final boolean ownsPool;

    private final int commitSeconds;
    private final boolean wantWriteback;

    /** Serves {@code ds}; with {@code ownsPool} the pool is closed (committed) when the filesystem is destroyed. */
    public PoolFs(Dataset ds, boolean ownsPool) throws IOException {
        this(ds, ownsPool, 5);
    }

    /** As above, committing every {@code commitSeconds} (0: only on fsync, dirty-data limit and unmount). */
    public PoolFs(Dataset ds, boolean ownsPool, int commitSeconds) throws IOException {
        this(ds, ownsPool, commitSeconds, false);
    }

    /**
     * As above; with {@code writeback} the kernel's writeback cache is asked for (DESIGN.md, "Writeback cache"):
     * write(2) fills the page cache and the kernel sends whole pages later, owning size and mtime meanwhile.
     */
    public PoolFs(Dataset ds, boolean ownsPool, int commitSeconds, boolean writeback) throws IOException {
        this(ds, ownsPool, commitSeconds, writeback, CacheTimeouts.DEFAULT);
    }

    /** As above, with the kernel's name and attribute cache kept for {@code timeouts}. */
    public PoolFs(Dataset ds, boolean ownsPool, int commitSeconds, boolean writeback, CacheTimeouts timeouts) throws IOException {
        super(ds, timeouts);
        this.ownsPool = ownsPool;
        this.commitSeconds = commitSeconds;
        this.wantWriteback = writeback && !ds.readOnly();
        if (!ds.readOnly()) ds.resetHook(new RollbackInvalidation(this));
        pool.lock().lock();
        try {
            if (inodes.get(Inodes.ROOT) == null) {
                Inode root = new Inode(Inodes.ROOT);
                root.mode = Attr.S_IFDIR | 0755;
                root.nlink = 2;
                root.uid = processId("uid");
                root.gid = processId("gid");
                root.parent = Inodes.ROOT;
                root.initTimes();
                inodes.put(root);
            }
            // inodes unlinked while open when the pool last went down (a snapshot's view changes nothing)
            if (!ds.readOnly()) for (long ino : inodes.orphans()) destroyInode(ino);
        } finally {
            pool.lock().unlock();
        }
    }

    private static int processId(String which) {
        try {
            return (Integer) java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:" + which);
        } catch (Exception | Error e) {
            return 0;
        }
    }


    @Override
    public void init(InitContext init) {
        for (Capability c : new Capability[] {Capability.ASYNC_READ, Capability.READDIRPLUS,
                Capability.READDIRPLUS_AUTO, Capability.PARALLEL_DIROPS, Capability.CACHE_SYMLINKS,
                Capability.HANDLE_KILLPRIV_V2}) {
            init.want(c);
        }
        // every data change comes through this kernel; AUTO_INVAL_DATA would drop pages whose write is still
        // on its way here, and a read in between caches the old bytes (DESIGN.md, "Page cache coherence")
        init.wanted().remove(Capability.AUTO_INVAL_DATA);
        // only on request: lseek's SEEK_DATA/SEEK_HOLE go, and dirty pages reach the pool only at writeback
        writeback = wantWriteback && init.want(Capability.WRITEBACK_CACHE);
        // the kernel enforces ACLs and caches them; with DONT_MASK it leaves the umask to the pool, which a
        // parent's default ACL replaces (Acls.inherit)
        acl = init.want(Capability.POSIX_ACL) && init.want(Capability.DONT_MASK);
        init.timeGranularity(1);
        notifier = init.notifier();
        // also without timed commits: it sends the invalidations of settled attributes, off the serving threads
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pool-txg-timer");
            t.setDaemon(true);
            return t;
        });
        if (commitSeconds > 0) timer.scheduleWithFixedDelay(this::timedCommit, commitSeconds, commitSeconds, TimeUnit.SECONDS);
    }

    private final java.util.concurrent.atomic.AtomicBoolean dropQueued = new java.util.concurrent.atomic.AtomicBoolean();

    /** Hands the invalidation of settled attributes to the timer thread (once; see {@link #dropSettledAttributes}). */
    @Override
    void dropSoon() {
        ScheduledExecutorService t = timer;
        if (t == null || !dropQueued.compareAndSet(false, true)) return;
        try {
            t.execute(() -> {
                dropQueued.set(false);
                dropSettledAttributes();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            dropQueued.set(false); // shutting down: the kernel forgets everything anyway
        }
    }

    private final java.util.concurrent.atomic.AtomicBoolean commitQueued = new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    void commitSoon() {
        ScheduledExecutorService t = timer;
        if (t == null || commitSeconds <= 0 || !commitQueued.compareAndSet(false, true)) return;
        try {
            t.execute(() -> {
                commitQueued.set(false);
                timedCommit();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            commitQueued.set(false); // shutting down: close() commits
        }
    }

    private void timedCommit() {
        try {
            // settled attributes: the sync hook queues their invalidation on the timer (dropSoon); close() runs
            // this on the destroy handler's thread, where there is nothing left to invalidate
            pool.commit();
        } catch (Throwable e) { // an Error too: thrown out of a scheduled task it would end the timer unseen
            System.err.println("pool " + pool.name() + ": commit failed: " + e);
        }
    }

    @Override
    public void destroy() {
        stopLseekFlushers();
        close();
    }

    private boolean closed;

    /**
     * Commits and, if it owns the pool, closes it; once. Synchronized, so a caller that closes after the
     * unmount waits for a destroy still running on a transport thread (the process may exit right after).
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (timer != null) timer.shutdownNow();
        if (!ds.readOnly()) ds.resetHook(null); // no longer served: a receive may change it again
        timedCommit();
        System.err.println("pool " + pool.name() + ": committed txg " + pool.txg());
        if (ownsPool) {
            try {
                pool.close();
            } catch (IOException e) {
                System.err.println("pool " + pool.name() + ": close failed: " + e.getMessage());
            }
        }
    }

    // ---- names -------------------------------------------------------------------------------------------

    Entry entry(Inode n) {
        inodes.lookedUp(n.ino);
        return new Entry(n.ino, n.generation, attr(n), timeouts.entryNanos(), timeouts.attrNanos());
    }

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        locked(() -> {
            Inode dir = dir(parent);
            byte[] nm = FileNames.encode(name);
            if (nm.length > 255) throw new FuseException(Errno.ENAMETOOLONG);
            Buckets.Dirent d = names.find(dir.ino, nm);
            if (d == null) reply.negative(timeouts.entryNanos());
            else reply.entry(entry(inodes.require(d.ino())));
        });
    }

    @Override
    public void forget(long nodeid, long nlookup) {
        locked(() -> {
            if (inodes.forget(nodeid, nlookup)) {
                Inode n = inodes.get(nodeid);
                if (n != null && n.nlink == 0) destroyInode(nodeid);
            }
        });
    }

    private Inode newNode(RequestContext ctx, Inode dir, String name, int mode) throws IOException {
        byte[] nm = FileNames.encode(name);
        if (nm.length > 255) throw new FuseException(Errno.ENAMETOOLONG);
        if (names.find(dir.ino, nm) != null) throw new FuseException(Errno.EEXIST);
        ds.checkSpace(NEW_NODE_BYTES); // EDQUOT at a quota, ENOSPC on a full pool
        int gid = (dir.mode & 02000) != 0 ? dir.gid : ctx.gid();
        PosixAcl.Inherited in = inherited(ctx, dir, mode);
        Inode n = inodes.allocate(in.mode(), ctx.uid(), gid);
        n.parent = dir.ino;
        if (n.isDir()) {
            n.nlink = 2;
            if ((dir.mode & 02000) != 0) n.mode |= 02000;
            dir.nlink++;
        }
        names.add(dir.ino, nm, n.ino, n.mode);
        dir.touchTimes(true, true);
        inodes.put(dir);
        inodes.put(n);
        Acls.apply(inodes, n, in);
        return n;
    }

    @Override
    public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) {
        locked(() -> {
            int type = mode & Attr.S_IFMT;
            if (type == Attr.S_IFDIR || type == Attr.S_IFLNK) throw new FuseException(Errno.EINVAL);
            Inode n = newNode(ctx, dir(parent), name, type == 0 ? mode | Attr.S_IFREG : mode);
            n.rdev = rdev;
            inodes.put(n);
            reply.entry(entry(n));
        });
    }

    @Override
    public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) {
        locked(() -> reply.entry(entry(newNode(ctx, dir(parent), name, Attr.S_IFDIR | (mode & 07777)))));
    }

    @Override
    public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) {
        locked(() -> {
            byte[] t = FileNames.encode(target);
            if (t.length == 0) throw new FuseException(Errno.ENOENT);
            if (t.length >= 4096) throw new FuseException(Errno.ENAMETOOLONG);
            Inode n = newNode(ctx, dir(parent), name, Attr.S_IFLNK | 0777);
            n.size = t.length;
            inodes.put(n);
            inodes.tree().put(new Key(n.ino, Inodes.SYMLINK, 0), t);
            reply.entry(entry(n));
        });
    }

    @Override
    public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) {
        locked(() -> {
            byte[] t = inodes.tree().get(new Key(nodeid, Inodes.SYMLINK, 0));
            if (t == null) throw new FuseException(Errno.EINVAL);
            reply.target(FileNames.decode(t));
        });
    }

    @Override
    public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) {
        locked(() -> {
            Inode n = newNode(ctx, dir(parent), name, Attr.S_IFREG | (mode & 07777));
            reply.created(entry(n), openHandle(n.ino, flags), openFlags());
        });
    }

    @Override
    public void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) {
        locked(() -> {
            Inode dir = dir(parent);
            ds.checkSpace(NEW_NODE_BYTES);
            PosixAcl.Inherited in = inherited(ctx, dir, Attr.S_IFREG | (mode & 07777));
            Inode n = inodes.allocate(in.mode(), ctx.uid(), (dir.mode & 02000) != 0 ? dir.gid : ctx.gid());
            n.nlink = 0;
            n.parent = dir.ino;
            inodes.put(n);
            Acls.apply(inodes, n, in);
            inodes.addOrphan(n.ino);
            reply.created(entry(n), openHandle(n.ino, flags), openFlags());
        });
    }

    @Override
    public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) {
        locked(() -> {
            ds.checkSpace(NEW_NODE_BYTES); // first: a check may commit, and inodes read before would be stale
            Inode n = inodes.require(nodeid);
            if (n.isDir()) throw new FuseException(Errno.EPERM);
            Inode dir = dir(newParent);
            byte[] nm = FileNames.encode(newName);
            if (names.find(dir.ino, nm) != null) throw new FuseException(Errno.EEXIST);
            names.add(dir.ino, nm, n.ino, n.mode);
            if (n.nlink == 0) inodes.removeOrphan(n.ino);
            n.nlink++;
            n.touchTimes(false, true);
            inodes.put(n);
            dir.touchTimes(true, true);
            inodes.put(dir);
            reply.entry(entry(n));
        });
    }

    @Override
    public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) {
        locked(() -> {
            Inode dir = dir(parent);
            byte[] nm = FileNames.encode(name);
            Buckets.Dirent d = names.find(dir.ino, nm);
            if (d == null) throw new FuseException(Errno.ENOENT);
            Inode n = inodes.require(d.ino());
            if (n.isDir()) throw new FuseException(Errno.EISDIR);
            names.remove(dir.ino, nm);
            dir.touchTimes(true, true);
            inodes.put(dir);
            dropLink(n);
            reply.ok();
        });
    }

    /** One name fewer; an inode without names goes now or, if the kernel still knows it, at its forget. */
    void dropLink(Inode n) throws IOException {
        n.nlink = Math.max(0, n.nlink - (n.isDir() ? 2 : 1));
        n.touchTimes(false, true);
        inodes.put(n);
        if (n.nlink == 0) {
            if (inodes.known(n.ino)) inodes.addOrphan(n.ino);
            else destroyInode(n.ino);
        }
    }

    void destroyInode(long ino) throws IOException {
        Inode n = inodes.get(ino);
        if (n != null && n.isFile()) data.freeAll(n);
        inodes.deleteAll(ino);
        inodes.removeOrphan(ino);
    }

    @Override
    public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) {
        locked(() -> {
            Inode dir = dir(parent);
            byte[] nm = FileNames.encode(name);
            Buckets.Dirent d = names.find(dir.ino, nm);
            if (d == null) throw new FuseException(Errno.ENOENT);
            Inode n = inodes.require(d.ino());
            if (!n.isDir()) throw new FuseException(Errno.ENOTDIR);
            if (!names.isEmpty(n.ino)) throw new FuseException(Errno.ENOTEMPTY);
            names.remove(dir.ino, nm);
            dir.nlink--;
            dir.touchTimes(true, true);
            inodes.put(dir);
            dropLink(n);
            reply.ok();
        });
    }

    @Override
    public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags,
                       StatusReply reply) {
        locked(() -> {
            Inode from = dir(parent);
            Inode to = parent == newParent ? from : dir(newParent); // one object when it is one directory
            Renames.rename(this, from, FileNames.encode(name), to, FileNames.encode(newName), flags);
            reply.ok();
        });
    }

    // ---- directories -------------------------------------------------------------------------------------

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        locked(() -> {
            dir(nodeid);
            reply.open(0, 0);
        });
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        locked(() -> {
            Inode dir = dir(nodeid);
            boolean room = offset >= 1 || reply.add(".", dir.ino, Attr.S_IFDIR, 1);
            if (room && offset < 2) room = reply.add("..", dir.parent, Attr.S_IFDIR, 2);
            if (room) names.after(dir.ino, Math.max(offset, 2), (d, cookie) ->
                    reply.add(FileNames.decode(d.name()), d.ino(), d.dtype() << 12, cookie));
            reply.send();
        });
    }

    @Override
    public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) {
        locked(() -> {
            Inode dir = dir(nodeid);
            boolean room = offset >= 1 || reply.add(".", new Entry(0, 0, attr(dir), 0, 0), 1);
            if (room && offset < 2) room = reply.add("..", new Entry(0, 0, attr(inodes.require(dir.parent)), 0, 0), 2);
            if (room) names.after(dir.ino, Math.max(offset, 2), (d, cookie) -> {
                Inode n = inodes.require(d.ino());
                if (!reply.add(FileNames.decode(d.name()), new Entry(n.ino, n.generation, attr(n), timeouts.entryNanos(), timeouts.attrNanos()), cookie)) return false;
                inodes.lookedUp(n.ino);
                return true;
            });
            reply.send();
        });
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        commitThen(0, reply);
    }

    @Override
    public void syncfs(RequestContext ctx, long nodeid, StatusReply reply) {
        commitThen(0, reply);
    }

    // ---- attributes --------------------------------------------------------------------------------------

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        locked(() -> reply.attr(attr(inodes.require(nodeid)), timeouts.attrNanos()));
    }

    @Override
    public void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) {
        locked(() -> reply.statx(attr(inodes.require(nodeid)), 0x7ff | 0x800, timeouts.attrNanos()));
    }

    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr s, AttrReply reply) {
        locked(() -> {
            Inode n = inodes.require(nodeid);
            if (s.hasSize() && n.isFile()) data.checkTruncate(n, s.size()); // EDQUOT; first, as the check may commit
            java.time.Instant now = java.time.Instant.now();
            // the writeback cache's kernel owns a file's mtime and ctime and sends them whenever it changes them
            // (a size change, ftruncate, chmod, utimes); truncate(2) to the same size comes with the size alone,
            // and stamping times here would show only after a remount (DESIGN.md, "Writeback cache")
            boolean kernelTimes = writeback && n.isFile();
            // truncate by a caller without CAP_FSETID, every chown (HANDLE_KILLPRIV_V2): decided on the old owner
            if (s.killSuidGid() && !n.isDir()) killPrivileges(ctx, n);
            if (s.hasSize()) {
                if (n.isDir()) throw new FuseException(Errno.EISDIR);
                if (!n.isFile()) throw new FuseException(Errno.EINVAL);
                data.truncate(n, s.size());
                if (!kernelTimes) n.touchTimes(true, true);
            }
            if (s.hasMode()) {
                n.mode = (n.mode & Attr.S_IFMT) | (s.mode() & 07777);
                Acls.chmod(inodes, n, n.mode);
            }
            if (s.hasUid()) n.uid = s.uid();
            if (s.hasGid()) n.gid = s.gid();
            if (s.hasAtime()) {
                n.atimeS = s.atimeNow() ? now.getEpochSecond() : s.atimeSec();
                n.atimeN = s.atimeNow() ? now.getNano() : s.atimeNsec();
            }
            if (s.hasMtime()) {
                n.mtimeS = s.mtimeNow() ? now.getEpochSecond() : s.mtimeSec();
                n.mtimeN = s.mtimeNow() ? now.getNano() : s.mtimeNsec();
            }
            if (s.hasCtime()) {
                n.ctimeS = s.ctimeSec();
                n.ctimeN = s.ctimeNsec();
            } else if (!kernelTimes) {
                n.touchTimes(false, true);
            }
            inodes.put(n);
            reply.attr(attr(n), timeouts.attrNanos());
        });
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        locked(() -> {
            // the dataset's view, as ZFS gives df: size = used + available (the quota when one binds)
            long[] ua = pool.space().statfs(ds);
            long avail = ua[1] / 4096;
            reply.statfs(new StatFs((ua[0] + ua[1]) / 4096, avail, avail, 1L << 40, 1L << 39, 4096, 255, 4096));
        });
    }

    static int openFlags() {
        return OpenFlags.KEEP_CACHE | OpenFlags.NOFLUSH;
    }

    // ---- plumbing ----------------------------------------------------------------------------------------

    /** A request body that may fail with I/O errors. */
    interface Body {
        void run() throws IOException;
    }

    /** Runs {@code body} under the pool lock, mapping storage failures to errno. */
    void locked(Body body) {
        pool.lock().lock();
        try {
            pool.checkUsable();
            body.run();
        } catch (NoSpaceException e) {
            throw new FuseException(Errno.ENOSPC);
        } catch (QuotaException e) {
            throw new FuseException(Errno.EDQUOT);
        } catch (ChecksumException e) {
            System.err.println("pool " + pool.name() + ": " + e.getMessage());
            throw new FuseException(Errno.EIO);
        } catch (IOException e) {
            System.err.println("pool " + pool.name() + ": " + e.getMessage());
            throw new FuseException(Errno.EIO);
        } finally {
            pool.lock().unlock();
        }
    }

    void commitThen(long nodeid, StatusReply reply) {
        try {
            pool.commit();
            // the synced file's own st_blocks is right when fsync returns (du after sync); the caller holds it
            // open, so this cannot be the reference whose release evicts it (dropSettledAttributes)
            if (nodeid != 0) dropSettledAttributes(nodeid);
            reply.ok();
        } catch (IOException e) {
            System.err.println("pool " + pool.name() + ": commit failed: " + e.getMessage());
            reply.error(e instanceof NoSpaceException ? Errno.ENOSPC : Errno.EIO);
        }
    }

    Pool pool() { return pool; }
}
