package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.LseekReply;
import dev.ringfuse.lowlevel.OpenFlags;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatusReply;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * Regular-file I/O: open handles, read, write, truncate, fallocate, SEEK_DATA/SEEK_HOLE, copy_file_range.
 * The half of {@link MemFs} that works on bytes; the other half works on names.
 */
abstract sealed class FileOps implements LowLevelFileSystem permits MemFs {
    static final int O_ACCMODE = 3, O_TRUNC = 01000, O_APPEND = 02000;
    static final int FALLOC_FL_KEEP_SIZE = 1, FALLOC_FL_PUNCH_HOLE = 2, FALLOC_FL_ZERO_RANGE = 16;
    static final int SEEK_DATA = 3, SEEK_HOLE = 4;
    /** copy_file_range moves at most this much per request (callers loop on short counts) ... */
    private static final long COPY_MAX = 1L << 30;
    /** ... through a buffer this large, so that no lock is held across two files. */
    private static final int COPY_PIECE = 1 << 20;

    /**
     * What an open file remembers: O_APPEND, and whether it may write (a truncation through a read-only
     * open is an O_TRUNC that needs write permission, see {@link Guard#setattr}).
     */
    private record Handle(FileNode node, boolean append, boolean writable) {}

    final InodeTable table;
    final long attrNanos;
    /** Off-heap memory of every file's chunks; unmapped at destroy. */
    final ChunkMemory memory;
    private final ConcurrentHashMap<Long, Handle> handles = new ConcurrentHashMap<>();
    private final AtomicLong nextFh = new AtomicLong(1);
    /** Set once in init. With the writeback cache the kernel decides offsets, O_APPEND included. */
    volatile boolean writeback;
    /** Set once in init: invalidates cached attributes after a privilege kill the reply cannot carry. */
    volatile dev.ringfuse.lowlevel.Notifier notifier;
    /** Set once in init: no default_permissions, so memfs checks each request ({@link Guard}). */
    volatile boolean enforce;

    FileOps(InodeTable table, int chunkSize, long attrNanos) {
        this.table = table;
        this.memory = new ChunkMemory(chunkSize);
        this.attrNanos = attrNanos;
    }

    FileNode newFile(long ino, int mode, int uid, int gid, int nlink) {
        return new FileNode(ino, mode, uid, gid, nlink, memory, table.limits);
    }

    long openHandle(FileNode f, int flags) {
        long fh = nextFh.getAndIncrement();
        handles.put(fh, new Handle(f, !writeback && (flags & O_APPEND) != 0, (flags & O_ACCMODE) != 0));
        return fh;
    }

    /**
     * Every change reaches memfs through this kernel, so its page cache never holds stale data: keep it
     * across opens. No FLUSH on close: memfs has nothing to flush and record locks live in the kernel (with
     * the writeback cache the kernel still writes dirty pages back on close).
     */
    int openFlags() { return OpenFlags.KEEP_CACHE | OpenFlags.NOFLUSH; }

    void closeAllHandles() { handles.clear(); }

    /** Whether the open file {@code fh} was opened for writing. */
    boolean writable(long fh) {
        Handle h = handles.get(fh);
        return h != null && h.writable();
    }

    /** This request's permission checks, or null when the kernel makes them (default_permissions). */
    Guard guard(RequestContext ctx) {
        return enforce ? new Guard(ctx) : null;
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        FileNode f = table.file(nodeid);
        Guard g = guard(ctx);
        if (g != null) g.open(f, flags);
        // only with ATOMIC_O_TRUNC, which MemFs.init does not ask for (see there); like tmpfs, the times change
        // even if the file was empty
        if ((flags & O_TRUNC) != 0) truncate(f, 0, Timespec.now());
        reply.open(openHandle(f, flags), openFlags());
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        FileNode f = table.file(nodeid);
        MemorySegment buf = reply.buffer();
        int n;
        Lock l = f.content.readLock();
        l.lock();
        try {
            n = f.data.read(offset, buf, size);
        } finally {
            l.unlock();
        }
        f.accessed(Timespec.now());
        reply.commit(n);
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags,
                      CountReply reply) {
        FileNode f = table.file(nodeid);
        Handle h = handles.get(fh);
        long n;
        Lock l = f.content.writeLock();
        l.lock();
        try {
            n = f.data.write(h != null && h.append ? f.data.size() : offset, data);
        } finally {
            l.unlock();
        }
        int mode = f.mode();
        if ((writeFlags & WRITE_KILL_SUIDGID) != 0) f.killPrivileges(() -> inGroup(ctx, f.gid()), table.limits);
        else f.xattrs.removeIfPresent(XattrMap.SECURITY_CAPABILITY, table.limits);
        f.modified(Timespec.now());
        if (f.mode() != mode) dropCachedAttributes(f);
        reply.count(n);
    }

    /** Whether the caller is in group {@code gid}, supplementary groups included; root counts as a member. */
    static boolean inGroup(RequestContext ctx, int gid) {
        return ctx.uid() == 0 || dev.ringfuse.access.Caller.of(ctx).inGroup(gid);
    }

    /**
     * fallocate and copy_file_range change a file as a write does, but the kernel sends no kill flag with
     * them (it does with HANDLE_KILLPRIV_V2 only for write, truncate and chown): memfs applies
     * file_remove_privs itself, with root standing for CAP_FSETID.
     */
    private void modifiedBy(RequestContext ctx, FileNode f) {
        int mode = f.mode();
        if (ctx.uid() != 0) f.killPrivileges(() -> inGroup(ctx, f.gid()), table.limits);
        else f.xattrs.removeIfPresent(XattrMap.SECURITY_CAPABILITY, table.limits);
        if (f.mode() != mode) dropCachedAttributes(f);
    }

    /**
     * The mode changed as a side effect and the reply carries no attributes (write, fallocate,
     * copy_file_range): without this the kernel would go on showing the old set-ID bits, to stat's mode-only
     * statx and to exec, until the attribute timeout. Attribute-only (offset -1): the kernel takes no inode
     * or page lock for it, so it is safe from the handler of the request that caused it, before the reply.
     */
    void dropCachedAttributes(Inode n) {
        dev.ringfuse.lowlevel.Notifier nt = notifier;
        if (nt == null) return;
        try {
            nt.invalInode(n.ino, -1, 0);
        } catch (java.io.IOException e) {
            System.getLogger("dev.ringfuse.fs.memfs").log(System.Logger.Level.DEBUG, "invalInode " + n.ino + ": " + e.getMessage());
        }
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        reply.ok();
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock,
                        StatusReply reply) {
        handles.remove(fh);
        reply.ok();
    }

    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        reply.ok();
    }

    /** tmpfs changes mtime and ctime on every truncate, even one that keeps the size. */
    void truncate(Inode n, long size, Timespec now) {
        if (!(n instanceof FileNode f)) throw new FuseException(n.isDir() ? Errno.EISDIR : Errno.EINVAL);
        Lock l = f.content.writeLock();
        l.lock();
        try {
            f.data.truncate(size);
        } finally {
            l.unlock();
        }
        f.modified(now);
    }

    /**
     * Modes tmpfs supports (0, KEEP_SIZE, PUNCH_HOLE|KEEP_SIZE) plus ZERO_RANGE; collapse, insert and unshare
     * are EOPNOTSUPP.
     */
    @Override
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length,
                          StatusReply reply) {
        if ((mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) != 0
                || (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
            throw new FuseException(Errno.EOPNOTSUPP);
        }
        if ((mode & FALLOC_FL_PUNCH_HOLE) != 0 && (mode & FALLOC_FL_KEEP_SIZE) == 0) throw new FuseException(Errno.EOPNOTSUPP);
        if (offset < 0 || length <= 0) throw new FuseException(Errno.EINVAL);
        FileNode f = table.file(nodeid);
        boolean keep = (mode & FALLOC_FL_KEEP_SIZE) != 0;
        Lock l = f.content.writeLock();
        l.lock();
        try {
            if ((mode & FALLOC_FL_PUNCH_HOLE) != 0) f.data.punchHole(offset, length);
            else if ((mode & FALLOC_FL_ZERO_RANGE) != 0) f.data.zeroRange(offset, length, keep);
            else f.data.allocate(offset, length, keep);
        } finally {
            l.unlock();
        }
        // tmpfs's fallocate calls file_modified() for every mode: mtime and ctime, even for KEEP_SIZE
        f.modified(Timespec.now());
        modifiedBy(ctx, f);
        reply.ok();
    }

    /**
     * Holes are found at page granularity (except gaps filled inside one chunk, see DESIGN.md).
     * With the writeback cache the kernel does not flush dirty pages before asking, and owns the size, so
     * memfs cannot know where data is: ENOSYS makes the kernel answer itself (all data up to its size).
     */
    @Override
    public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) {
        if (writeback) throw new FuseException(Errno.ENOSYS);
        if (whence != SEEK_DATA && whence != SEEK_HOLE) throw new FuseException(Errno.EINVAL);
        FileNode f = table.file(nodeid);
        long r;
        Lock l = f.content.readLock();
        l.lock();
        try {
            r = whence == SEEK_DATA ? f.data.seekData(offset) : f.data.seekHole(offset);
        } finally {
            l.unlock();
        }
        if (r < 0) throw new FuseException(Errno.ENXIO);
        reply.offset(r);
    }

    @Override
    public void copyFileRange(RequestContext ctx, long nodeIn, long fhIn, long offIn, long nodeOut, long fhOut,
                              long offOut, long length, int flags, CountReply reply) {
        if (flags != 0) throw new FuseException(Errno.EINVAL);
        FileNode src = table.file(nodeIn), dst = table.file(nodeOut);
        long total = Math.min(length, COPY_MAX);
        MemorySegment buf = MemorySegment.ofArray(new byte[(int) Math.min(total, COPY_PIECE)]);
        long done = 0;
        while (done < total) {
            int want = (int) Math.min(total - done, buf.byteSize());
            int n;
            Lock rl = src.content.readLock();
            rl.lock();
            try {
                n = src.data.read(offIn + done, buf, want);
            } finally {
                rl.unlock();
            }
            if (n == 0) break;
            long w;
            Lock wl = dst.content.writeLock();
            wl.lock();
            try {
                w = dst.data.write(offOut + done, buf.asSlice(0, n));
            } catch (FuseException e) {
                if (done == 0) throw e;
                break;
            } finally {
                wl.unlock();
            }
            done += w;
            if (w < n) break;
        }
        if (done > 0) {
            dst.modified(Timespec.now());
            modifiedBy(ctx, dst);
        }
        reply.count(done);
    }
}
