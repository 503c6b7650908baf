package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.Caller;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.FileNames;
import dev.ringfuse.lowlevel.LseekReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.XattrReply;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.Notifier;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/** The byte half of {@link PoolFs}: state shared by both halves, open handles, read, write, fsync, fallocate, lseek, xattrs. */
abstract sealed class PoolFsFiles implements LowLevelFileSystem permits PoolFs {
    static final long DIRTY_LIMIT = 64L << 20;
    static final int O_TRUNC = 01000, O_APPEND = 02000;
    /** fuse_write_in.write_flags: the write comes from the page cache (mmap, or the writeback cache). */
    static final int WRITE_CACHE = 1;
    static final int FALLOC_KEEP_SIZE = 1, FALLOC_PUNCH_HOLE = 2;
    /** OpenZFS's zfs_fallocate_reserve_percent: fallocate wants this much of its length available. */
    static final long FALLOCATE_RESERVE_PERCENT = 110;
    private static final byte[] SECURITY_CAPABILITY = "security.capability".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    final Dataset ds;
    /** How long the kernel keeps names and attributes (see {@link CacheTimeouts}). */
    final CacheTimeouts timeouts;
    final Pool pool;
    final Inodes inodes;
    final Names names;
    final FileData data;
    private final ConcurrentHashMap<Long, Boolean> appendHandles = new ConcurrentHashMap<>();
    private final AtomicLong nextFh = new AtomicLong(1);
    /** Open handles per regular file, counted only under the writeback cache (see {@link #openFiles}). */
    private final ConcurrentHashMap<Long, Integer> openCounts = new ConcurrentHashMap<>();
    /** The kernel's notifier, once INIT has given it (see {@link #dropCachedAttributes}). */
    volatile Notifier notifier;
    /** POSIX_ACL and DONT_MASK were granted; set once in INIT. */
    volatile boolean acl;
    /** The kernel's writeback cache was granted; set once in INIT. The kernel then decides offsets (O_APPEND). */
    volatile boolean writeback;

    PoolFsFiles(Dataset ds, CacheTimeouts timeouts) {
        this.ds = ds;
        this.timeouts = timeouts;
        this.pool = ds.pool();
        this.inodes = new Inodes(ds);
        this.names = new Names(inodes);
        this.data = new FileData(ds, inodes);
        ds.syncHook(txg -> {
            data.sync(txg);
            if (estimated.isEmpty()) return;
            settled.addAll(estimated);
            estimated.clear();
            dropSoon(); // whoever commits (a request, the timer, the control socket): st_blocks is final in memory now
        });
        ds.pendingBytes(data::dirtyBytes);
    }

    abstract void locked(PoolFs.Body body);

    abstract void commitThen(long nodeid, StatusReply reply);

    /** Starts a commit in the background (once; no-op if one is queued). */
    abstract void commitSoon();

    /** Has the timer thread send the invalidations of settled attributes (once; see {@link #dropSettledAttributes}). */
    abstract void dropSoon();

    /**
     * Files whose st_blocks went to the kernel counting dirty buffers (pool lock). The commit that writes them
     * changes st_blocks (compression, holes, a small file's short block) without a request the kernel sees, so
     * their cached attributes are dropped after it ({@link #dropSettledAttributes}).
     */
    private final java.util.Set<Long> estimated = new java.util.HashSet<>();
    private final java.util.concurrent.ConcurrentLinkedQueue<Long> settled = new java.util.concurrent.ConcurrentLinkedQueue<>();

    Attr attr(Inode n) {
        long dirty = n.isFile() ? data.dirtyBytes(n.ino) : 0;
        if (dirty > 0) estimated.add(n.ino);
        return n.attr(dirty);
    }

    /**
     * Drops the kernel's attributes of files whose st_blocks a commit settled. Only from the timer thread, which
     * serves no request, and without the pool lock: the kernel's lookup of the inode takes a reference, and if
     * the release of that reference is the last one it evicts the inode, which waits for pages under writeback
     * (writeback cache, mmap) whose WRITE a serving thread must answer.
     */
    void dropSettledAttributes() {
        for (Long ino; (ino = settled.poll()) != null; ) dropCachedAttributes(ino);
    }

    /**
     * As above for one file the caller holds open (fsync), from its own handler, whether or not the timer
     * thread took it already: fsync returns with the file's st_blocks right.
     */
    void dropSettledAttributes(long ino) {
        settled.remove(ino);
        dropCachedAttributes(ino);
    }

    Inode dir(long ino) throws IOException {
        Inode n = inodes.require(ino);
        if (!n.isDir()) throw new FuseException(Errno.ENOTDIR);
        return n;
    }

    Inode file(long ino) throws IOException {
        Inode n = inodes.require(ino);
        if (n.isDir()) throw new FuseException(Errno.EISDIR);
        if (!n.isFile()) throw new FuseException(Errno.EINVAL);
        return n;
    }

    /**
     * The mode and ACLs of a new inode of {@code mode} in {@code dir}: inherited from its default ACL, else the
     * umask applies. Without POSIX_ACL the kernel applied the umask already; symlinks get no ACL.
     */
    PosixAcl.Inherited inherited(RequestContext ctx, Inode dir, int mode) throws IOException {
        if (!acl || (mode & Attr.S_IFMT) == Attr.S_IFLNK) return new PosixAcl.Inherited(mode, null, null);
        return Acls.inherit(inodes, dir, mode, ctx.umask());
    }

    long openHandle(long ino, int flags) {
        long fh = nextFh.getAndIncrement();
        // only appends need remembering; under the writeback cache the kernel places appends itself, and
        // writes back pages of any descriptor through whichever handle it picks
        if ((flags & O_APPEND) != 0 && !writeback) appendHandles.put(fh, true);
        if (writeback) {
            openCounts.merge(ino, 1, Integer::sum);
            if ((flags & 3) != 0) {
                writableHandles.put(fh, ino);
                writerCounts.merge(ino, 1, Integer::sum);
            }
        }
        return fh;
    }

    /**
     * Writable handles under the writeback cache (handle → inode) and their count per inode: only a file with
     * one can have pages the kernel has not written back (close writes them back before RELEASE, and a shared
     * mapping keeps its handle), so only then does SEEK_DATA/SEEK_HOLE need them first ({@link #lseek}).
     */
    private final ConcurrentHashMap<Long, Long> writableHandles = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Integer> writerCounts = new ConcurrentHashMap<>();

    /**
     * Regular files the kernel holds open (a shared mapping keeps its file open), under the writeback cache;
     * 0 without it. A rollback cannot reach their size in the kernel (RollbackInvalidation).
     */
    int openFiles() {
        return openCounts.size();
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        locked(() -> {
            Inode n = file(nodeid);
            if ((flags & O_TRUNC) != 0) {
                data.truncate(n, 0);
                n.touchTimes(true, true);
                inodes.put(n);
            }
            reply.open(openHandle(nodeid, flags), PoolFs.openFlags());
        });
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment src, int writeFlags,
                      CountReply reply) {
        int len = (int) src.byteSize(); // at most max_write
        long[] dirty = new long[1];
        locked(() -> {
            Inode n = file(nodeid);
            // a page written back (WRITE_CACHE: mmap, or the writeback cache) goes where it belongs, whatever
            // the handle the kernel lent it: an O_APPEND handle's writes go to the end only when they are its own
            boolean append = (writeFlags & WRITE_CACHE) == 0 && Boolean.TRUE.equals(appendHandles.get(fh));
            long at = append ? n.size : offset;
            data.write(n, at, src, len);
            boolean killed = (writeFlags & WRITE_KILL_SUIDGID) != 0 && killPrivileges(ctx, n);
            // under the writeback cache the kernel stamped mtime and ctime at write(2) and sends them by SETATTR,
            // before or after its pages: the time the pages arrive here is not the file's
            if (killed || !writeback || (writeFlags & WRITE_CACHE) == 0) n.touchTimes(true, true);
            inodes.put(n);
            dirty[0] = data.dirtyBytes();
            if (killed) dropCachedAttributes(n.ino);
        });
        if (dirty[0] > DIRTY_LIMIT) commitWaiting(); // memory bound: this writer waits
        else if (dirty[0] > DIRTY_LIMIT / 4) commitSoon(); // the device writes while writers go on
        reply.count(len);
    }

    /**
     * Commits for a writer past the dirty-data limit, after its pool lock is released: the commit takes the
     * lock for its cut only, so the writer waits for the devices and the other requests do not.
     */
    private void commitWaiting() {
        try {
            pool.commit();
        } catch (IOException e) {
            System.getLogger("dev.ringfuse.pool").log(System.Logger.Level.WARNING, "pool " + pool.name() + ": commit failed: " + e.getMessage());
            throw new FuseException(e instanceof NoSpaceException ? Errno.ENOSPC : Errno.EIO);
        }
    }

    /**
     * Drops set-ID bits and security.capability as the kernel's file_remove_privs would for a caller without
     * CAP_FSETID (the kernel's flag says only that); true if the mode changed. Root counts as a member of every
     * group: the kernel sends the flag for root only with a chown, which tmpfs lets keep a non-executable setgid.
     */
    boolean killPrivileges(RequestContext ctx, Inode n) throws IOException {
        boolean capability = Xattrs.getOrNull(inodes, n, SECURITY_CAPABILITY) != null;
        if ((n.mode & 06000) == 0 && !capability) return false;
        if (capability) Xattrs.remove(inodes, n, SECURITY_CAPABILITY);
        return n.killPrivileges(() -> ctx.uid() == 0 || Caller.of(ctx).inGroup(n.gid));
    }

    /**
     * The mode changed as a side effect of a request whose reply carries no attributes (write): without this
     * the kernel would show the old set-ID bits until its attribute timeout. Attribute-only (offset -1): the
     * kernel takes no inode or page lock for it, so it is safe from the request's own handler, before the reply.
     */
    void dropCachedAttributes(long ino) {
        Notifier nt = notifier;
        if (nt == null) return;
        try {
            nt.invalInode(ino, -1, 0);
        } catch (IOException e) {
            System.getLogger("dev.ringfuse.pool").log(System.Logger.Level.DEBUG, "invalInode " + ino + ": " + e.getMessage());
        }
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        reply.ok();
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock,
                        StatusReply reply) {
        appendHandles.remove(fh);
        if (writeback) {
            openCounts.computeIfPresent(nodeid, (k, v) -> v > 1 ? v - 1 : null);
            Long ino = writableHandles.remove(fh);
            if (ino != null) writerCounts.computeIfPresent(ino, (k, v) -> v > 1 ? v - 1 : null);
        }
        reply.ok();
    }

    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        commitThen(nodeid, reply);
    }

    /**
     * As OpenZFS's: mode 0 and KEEP_SIZE reserve nothing (copy-on-write: a later write of the range takes new
     * blocks whatever was allocated before) but get ENOSPC when the length plus 10 % is more than the dataset
     * has available, quota included (zfs_fallocate_reserve_percent=110); mode 0 then extends the size.
     * PUNCH_HOLE|KEEP_SIZE frees the whole blocks of the range (to a dead list while a snapshot holds them) and
     * zeroes the parts of the others; other modes are EOPNOTSUPP. See DESIGN.md, "fallocate".
     */
    @Override
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length, StatusReply reply) {
        locked(() -> {
            if (offset < 0 || length <= 0) throw new FuseException(Errno.EINVAL);
            Inode n = file(nodeid);
            if (mode == (FALLOC_PUNCH_HOLE | FALLOC_KEEP_SIZE)) {
                data.punch(n, offset, length);
                n.touchTimes(true, true);
            } else if (mode == 0 || mode == FALLOC_KEEP_SIZE) {
                if (offset + length < 0 || offset + length > FileData.MAX_SIZE) throw new FuseException(Errno.EFBIG);
                long available = pool.space().statfs(ds)[1];
                if (length > available / FALLOCATE_RESERVE_PERCENT * 100) throw new FuseException(Errno.ENOSPC);
                if (mode == 0 && offset + length > n.size) n.size = offset + length;
                n.touchTimes(false, true);
            } else {
                throw new FuseException(Errno.EOPNOTSUPP);
            }
            // a change as a write makes, but the kernel sends no kill flag with fallocate: file_remove_privs
            // here, root standing for CAP_FSETID (security.capability goes for root too, as in the kernel)
            boolean killed = ctx.uid() != 0 && killPrivileges(ctx, n);
            if (ctx.uid() == 0 && Xattrs.getOrNull(inodes, n, SECURITY_CAPABILITY) != null) Xattrs.remove(inodes, n, SECURITY_CAPABILITY);
            inodes.put(n);
            if (killed) dropCachedAttributes(n.ino);
            reply.ok();
        });
    }

    // ---- xattrs ------------------------------------------------------------------------------------------

    @Override
    public void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) {
        locked(() -> {
            ds.checkSpace(value.byteSize() + name.length()); // EDQUOT past a quota
            Inode n = inodes.require(nodeid);
            byte[] v = value.toArray(ValueLayout.JAVA_BYTE);
            // root counts as a member of every group: the kernel's kill-sgid flag does not reach this API
            if (PosixAcl.isAcl(name)) Acls.set(inodes, n, name, v, flags, ctx.uid() == 0 || Caller.of(ctx).inGroup(n.gid));
            else Xattrs.set(inodes, n, FileNames.encode(name), v, flags);
            reply.ok();
        });
    }

    @Override
    public void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) {
        locked(() -> reply.value(Xattrs.get(inodes, inodes.require(nodeid), FileNames.encode(name))));
    }

    @Override
    public void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) {
        // trusted.* is root's namespace: its names are not listed to anyone else (as the kernel's filesystems do)
        locked(() -> reply.names(Xattrs.list(inodes, inodes.require(nodeid)).stream()
                .filter(n -> ctx.uid() == 0 || !n.startsWith("trusted.")).toList()));
    }

    @Override
    public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) {
        locked(() -> {
            Inode n = inodes.require(nodeid);
            // the kernel's capability kill reaches here for a stranger's chown(-1, -1) too (Permissions)
            if (name.equals(dev.ringfuse.access.Permissions.SECURITY_CAPABILITY) && !dev.ringfuse.access.Permissions
                    .mayDropCapability(Caller.of(ctx), Acls.subject(inodes, n))) {
                throw new FuseException(Errno.EPERM);
            }
            Xattrs.remove(inodes, n, FileNames.encode(name));
            reply.ok();
        });
    }


    /**
     * SEEK_DATA/SEEK_HOLE from the blocks. Under the writeback cache the kernel asks without writing its dirty
     * pages back (fuse_lseek) and without telling its size, so for a file with a writable handle open the pool
     * first has them written back: the handler returns without replying, and one of at most
     * {@link #LSEEK_FLUSHERS} platform threads invalidates the file's pages from the offset on (the kernel
     * launders dirty ones as WRITEs, served by the request threads this handler left free, and waits for them)
     * and then answers. Platform threads: the notification blocks in write(2), which would pin a virtual
     * thread's carrier. Held replies are capped (each keeps a request buffer or ring entry that the laundered
     * WRITEs may need); past the cap the answer is ENOSYS, after which the kernel answers from its own size
     * (all data) for the connection's life, as before session 10.
     */
    @Override
    public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) {
        if (whence != 3 && whence != 4) throw new FuseException(Errno.EINVAL);
        Notifier nt = notifier;
        if (writeback && writerCounts.containsKey(nodeid) && nt != null) {
            // the cap counts held replies, not threads: a pool's hand-off to an idle thread races with the
            // thread's return to waiting, and refused back-to-back lseeks of one caller (ENOSYS for good)
            if (!lseekHeld.tryAcquire()) throw new FuseException(Errno.ENOSYS);
            try {
                lseekFlushers.execute(() -> flushThenSeek(nt, nodeid, offset, whence, reply));
            } catch (java.util.concurrent.RejectedExecutionException e) { // shut down: the mount is ending
                lseekHeld.release();
                throw new FuseException(Errno.ENOSYS);
            }
            return;
        }
        seek(nodeid, offset, whence, reply);
    }

    /** Deferred lseeks in progress at most (see {@link #lseek}). */
    static final int LSEEK_FLUSHERS = 2;
    private final java.util.concurrent.Semaphore lseekHeld = new java.util.concurrent.Semaphore(LSEEK_FLUSHERS);
    private final java.util.concurrent.ThreadPoolExecutor lseekFlushers = new java.util.concurrent.ThreadPoolExecutor(
            LSEEK_FLUSHERS, LSEEK_FLUSHERS, 10, java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "pool-lseek-flush");
                t.setDaemon(true);
                return t;
            });

    {
        lseekFlushers.allowCoreThreadTimeOut(true); // no thread while nothing is deferred
    }

    /** Ends the deferred lseeks' threads (at destroy; a later deferral is answered ENOSYS). */
    final void stopLseekFlushers() {
        lseekFlushers.shutdown();
    }

    private void flushThenSeek(Notifier nt, long nodeid, long offset, int whence, LseekReply reply) {
        long at = -1;
        Errno failed = null;
        try {
            nt.invalInode(nodeid, offset / 4096 * 4096, 0); // pages before the offset change no answer
            at = locate(nodeid, offset, whence);
        } catch (FuseException e) {
            failed = e.errno();
        } catch (Throwable e) { // an Error too: the kernel holds the file's inode lock until this is answered
            System.getLogger("dev.ringfuse.pool").log(System.Logger.Level.WARNING, "lseek " + nodeid + ": " + e);
            failed = Errno.EIO;
        } finally {
            lseekHeld.release(); // before the reply: the caller's next lseek may arrive as soon as it has it
        }
        if (failed != null) reply.error(failed);
        else reply.offset(at);
    }

    private void seek(long nodeid, long offset, int whence, LseekReply reply) {
        reply.offset(locate(nodeid, offset, whence));
    }

    /** The SEEK_DATA (whence 3) or SEEK_HOLE answer from the pool's blocks; ENXIO past the data. */
    private long locate(long nodeid, long offset, int whence) {
        long[] r = new long[1];
        locked(() -> r[0] = data.seek(file(nodeid), offset, whence == 3));
        if (r[0] < 0) throw new FuseException(Errno.ENXIO);
        return r[0];
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        BlockIo.Fetch[] fetching = new BlockIo.Fetch[1];
        locked(() -> {
            Inode n = file(nodeid);
            data.track(n, offset, size);
            fetching[0] = data.fetch(n, offset, size); // last: nothing after it may throw and leave its entries pinned
            // straight into the transport's reply buffer: no intermediate array (DESIGN.md, "Read path")
            if (fetching[0] == null) reply.commit(data.copy(n, offset, reply.buffer(), size));
        });
        // blocks on their way from the device: answered when they are here, and this thread takes the next request
        // (pool/DESIGN.md, "Reads that wait for the device")
        BlockIo.Fetch f = fetching[0];
        if (f != null) f.arrived.thenAcceptAsync(arrived -> copyLater(nodeid, offset, size, reply, f, arrived), LATER);
    }

    /** Where reads whose blocks arrived are answered: off the checker threads, which complete the other blocks. */
    private static final Executor LATER =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("pool-read-", 0).factory());

    private void copyLater(long nodeid, long offset, int size, ReadReply reply, BlockIo.Fetch f, boolean arrived) {
        try {
            if (!arrived) pool.io().dropUnarrived(f); // what has not come in 60 s is read the ordinary way
            locked(() -> reply.commit(data.copy(file(nodeid), offset, reply.buffer(), size)));
        } catch (FuseException e) {
            answer(reply, e.errno());
        } catch (Throwable e) { // an Error too: the reader waits for this answer
            System.getLogger("dev.ringfuse.pool").log(System.Logger.Level.WARNING, "read " + nodeid + ": " + e);
            answer(reply, Errno.EIO);
        } finally {
            pool.io().release(f);
        }
    }

    /** An error answer from a thread of the pool's own, which nothing above would log: the mount may be gone by now. */
    private static void answer(ReadReply reply, Errno errno) {
        try {
            if (!reply.isDone()) reply.error(errno);
        } catch (RuntimeException e) {
            System.getLogger("dev.ringfuse.pool").log(System.Logger.Level.DEBUG, "late read answer: " + e);
        }
    }

}
