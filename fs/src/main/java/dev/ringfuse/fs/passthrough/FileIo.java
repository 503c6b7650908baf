package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.io.ThreadRings;
import dev.ringfuse.fs.passthrough.Inodes.Inode;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.LseekReply;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.uring.UringException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

import static dev.ringfuse.fs.passthrough.PosixCalls.AT_FDCWD;
import static dev.ringfuse.fs.passthrough.PosixCalls.O_CLOEXEC;
import static dev.ringfuse.lowlevel.LowLevelFileSystem.WRITE_KILL_SUIDGID;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Open files and directories of the passthrough filesystem. The kernel's file handle is the descriptor of
 * our own open of the source inode (reopened through its O_PATH descriptor, never by name). Reads fill the
 * transport's reply buffer directly and writes hand the request's payload to the kernel: no copy in Java
 * either way. Without kernel passthrough they go through the calling thread's own io_uring
 * ({@link ThreadRings}), or pread(2)/pwrite(2) where io_uring is unavailable or turned off.
 */
abstract sealed class FileIo extends SourceTree permits PassthroughFs {
    private static final int DROP_FLAGS = PosixCalls.O_CREAT | PosixCalls.O_EXCL | PosixCalls.O_NOCTTY
            | PosixCalls.O_NOFOLLOW;
    private static final int SEEK_SET = 0;

    final KernelPassthrough kernel;
    /** The data path when the kernel does not pass reads and writes through; null: pread/pwrite. */
    private final ThreadRings rings;
    /** The connection's notifier (set at INIT): attribute invalidation after a privilege kill. */
    volatile dev.ringfuse.lowlevel.Notifier notifier;
    /** __FMODE_EXEC: the kernel's open on behalf of execve(2) carries it in the open flags. */
    private static final int FMODE_EXEC = 0x20;
    /** Open files using a backing id → their inode, for release. */
    private final ConcurrentHashMap<Long, Inode> backed = new ConcurrentHashMap<>();
    /**
     * Descriptors the server reads and writes itself that were opened with O_DIRECT. The source then wants
     * memory aligned to its logical block size (ext4, xfs: EINVAL otherwise; tmpfs does not care), and a
     * transport's buffers are not: the data follows the FUSE headers. Their I/O goes through {@link Bounce}.
     */
    private final java.util.Set<Long> direct = ConcurrentHashMap.newKeySet();

    FileIo(Inodes inodes, long entryNanos, long attrNanos, KernelPassthrough kernel, ThreadRings rings) {
        super(inodes, entryNanos, attrNanos);
        this.kernel = kernel;
        this.rings = rings;
    }

    /** Closes the data path's rings (at destroy, when no callback runs any more). */
    final void closeRings() {
        if (rings != null) rings.close();
    }

    /** A new descriptor for the inode, opened through "/proc/self/fd/N" of its O_PATH descriptor. */
    static int reopen(Inode n, int flags) {
        try (Arena a = Arena.ofConfined()) {
            return check(PosixCalls.openat(AT_FDCWD, a.allocateFrom(n.procPath()), (flags & ~DROP_FLAGS) | O_CLOEXEC, 0));
        }
    }

    /** The backing id for a new open file {@code fd} of {@code n}, or -1 for an ordinary open. */
    final int backing(Inode n, int fd) {
        if (!kernel.on() || n.type != S_IFREG) return -1;
        try {
            int id = kernel.acquire(n);
            backed.put((long) fd, n);
            return id;
        } catch (IOException e) {
            if (kernel.fallBack(e)) return -1;
            PosixCalls.close(fd);
            throw new FuseException(Errno.EIO);
        }
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        Inode n = inodes.get(nodeid);
        int fd;
        // without default_permissions the source checks the open as the caller; execve's open needs search
        // permission too, which open(2) alone would not check
        try (Credentials as = Credentials.of(ctx, enforce)) {
            if (enforce && (flags & FMODE_EXEC) != 0) accessAsCaller(n, PosixCalls.X_OK);
            fd = reopen(n, flags);
        }
        int id = backing(n, fd);
        if (id <= 0 && (flags & PosixCalls.O_DIRECT) != 0) direct.add((long) fd);
        if (id > 0) reply.open(fd, 0, id);
        else reply.open(fd, 0);
    }

    /** Answers create/tmpfile for the new descriptor {@code fd}, opened with {@code flags}. */
    final void created(Entry e, int fd, int flags, CreateReply reply) {
        int id = backing(inodes.get(e.nodeid()), fd);
        if (id <= 0 && (flags & PosixCalls.O_DIRECT) != 0) direct.add((long) fd);
        if (id > 0) reply.created(e, fd, 0, id);
        else reply.created(e, fd, 0);
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        MemorySegment dst = reply.buffer().asSlice(0, size);
        if (Bounce.needed(dst) && direct.contains(fh)) {
            MemorySegment b = Bounce.get(size).asSlice(0, size);
            int n = read(fh, b, offset);
            MemorySegment.copy(b, 0, dst, 0, n);
            reply.commit(n);
            return;
        }
        reply.commit(read(fh, dst, offset));
    }

    private int read(long fh, MemorySegment dst, long offset) {
        return ring(fh) ? uring(() -> rings.read((int) fh, dst, offset)) : (int) check(PosixCalls.pread((int) fh, dst, offset));
    }

    /**
     * Whether {@code fh}'s I/O goes through the thread's ring. Not for O_DIRECT descriptors: on tmpfs their
     * reads cannot be tried without blocking, so io_uring handed each to an io-wq worker and its completion
     * back, two wake-ups per request; on a disk the thread waits for the device either way. pread costs neither
     * (docs/bench/transports.md, "passthrough-off on /dev/fuse").
     */
    private boolean ring(long fh) {
        return rings != null && !direct.contains(fh);
    }

    /**
     * HANDLE_KILLPRIV_V2 was granted (only with kernel passthrough off): the kernel no longer asks for
     * security.capability before every write nor sends a SETATTR to clear set-ID bits; it marks a write by a
     * caller without CAP_FSETID with WRITE_KILL_SUIDGID and the server clears them ({@link #killPrivileges}).
     * A root server's own pwrite keeps them (it holds CAP_FSETID), while the source removes a file
     * capability on any write. Truncation, chown and fallocate run as the caller, so the source kills there.
     */
    volatile boolean killsPrivileges;

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags, CountReply reply) {
        if (killsPrivileges && (writeFlags & WRITE_KILL_SUIDGID) != 0) killPrivileges(ctx, inodes.get(nodeid));
        MemorySegment src = data;
        if (Bounce.needed(data) && direct.contains(fh)) {
            src = Bounce.get(data.byteSize()).asSlice(0, data.byteSize());
            src.copyFrom(data);
        }
        MemorySegment s = src;
        reply.count(ring(fh) ? uring(() -> rings.write((int) fh, s, offset)) : check(PosixCalls.pwrite((int) fh, s, offset)));
    }

    private interface RingCall {
        int call() throws UringException;
    }

    /** A ring operation's result, its errno as the reply's. */
    private static int uring(RingCall c) {
        try {
            return c.call();
        } catch (UringException e) {
            Errno errno = Errno.of(e.errno());
            throw new FuseException(errno == null ? Errno.EIO : errno);
        }
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        reply.ok(); // locks are the kernel's; data is written through already
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock, StatusReply reply) {
        Inode n = backed.remove(fh);
        direct.remove(fh);
        PosixCalls.close((int) fh);
        if (n != null) kernel.release(n);
        reply.ok();
    }

    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        check(PosixCalls.fsync((int) fh, datasync));
        reply.ok();
    }

    @Override
    /**
     * fallocate and copy_file_range run as the caller: the source then clears set-user-ID/set-group-ID for
     * a caller without CAP_FSETID as it would for a local call, and the kernel's cached mode is dropped.
     */
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length, StatusReply reply) {
        Inode n = inodes.get(nodeid);
        int setId = setIdBits(n);
        try (Credentials as = Credentials.of(ctx)) {
            check(PosixCalls.fallocate((int) fh, mode, offset, length));
        }
        dropCachedModeIfKilled(n, setId);
        reply.ok();
    }

    /**
     * A writer without CAP_FSETID changes {@code n}: set-user-ID goes, set-group-ID goes when group-executable
     * or when the writer is outside the file's group, as tmpfs decides (the rule of
     * {@link dev.ringfuse.access.Permissions#killedMode}). Done as the server (the writer need not own the
     * file), before the write as the kernel's file_remove_privs does, and the kernel's cached mode dropped.
     * One statx per such write; nothing more unless a set-ID bit is there.
     */
    final void killPrivileges(RequestContext ctx, Inode n) {
        synchronized (n) { // the statx and the chmod as one, against setattr's mode changes and other writers
            Attr now = attr(n);
            int mode = now.mode() & 07777;
            if ((mode & 06000) == 0) return;
            int killed = dev.ringfuse.access.Permissions.killedMode(mode,
                    () -> ctx.uid() == 0 || dev.ringfuse.access.Caller.of(ctx).inGroup(now.gid()));
            if (killed == mode) return;
            chmod(n, killed);
        }
        dropCachedAttributes(n);
    }

    /** chmod of {@code n} as the server, through its O_PATH descriptor. */
    static void chmod(Inode n, int mode) {
        try (Arena a = Arena.ofConfined()) {
            check(PosixCalls.fchmodat(AT_FDCWD, a.allocateFrom(n.procPath()), mode & 07777, 0));
        }
    }

    /** The set-user-ID and set-group-ID bits of {@code n} now. */
    static int setIdBits(Inode n) {
        return attr(n).mode() & 06000;
    }

    /**
     * After a call that may have cleared set-ID bits (was {@code before}): if it did, invalidate the kernel's
     * cached attributes before the reply, so that no caller (nor exec) sees the old mode. An attribute-only
     * invalidation (offset -1) takes no inode or page lock in the kernel, so it is safe from the handler of
     * the request that caused it.
     */
    final void dropCachedModeIfKilled(Inode n, int before) {
        if (before != 0 && setIdBits(n) != before) dropCachedAttributes(n);
    }

    /** Invalidates the kernel's cached attributes of {@code n} (attributes only: safe from any handler). */
    final void dropCachedAttributes(Inode n) {
        dev.ringfuse.lowlevel.Notifier nt = notifier;
        if (nt == null) return;
        try {
            nt.invalInode(n.nodeid, -1, 0);
        } catch (IOException e) {
            System.getLogger("dev.ringfuse.fs.passthrough").log(System.Logger.Level.DEBUG,
                    "invalInode " + n.nodeid + ": " + e.getMessage());
        }
    }

    /** Whether the caller may write the inode at {@code proc} (its magic link), as the source decides for it. */
    static boolean writableBy(RequestContext ctx, MemorySegment proc) {
        try (Credentials as = Credentials.of(ctx)) {
            return PosixCalls.faccessat(AT_FDCWD, proc, PosixCalls.W_OK, PosixCalls.AT_EACCESS) == 0;
        }
    }

    /** access(2) with the current (the caller's) credentials; EACCES etc. as the source says. */
    static void accessAsCaller(Inode n, int mask) {
        try (Arena a = Arena.ofConfined()) {
            check(PosixCalls.faccessat(AT_FDCWD, a.allocateFrom(n.procPath()), mask, PosixCalls.AT_EACCESS));
        }
    }

    /** Only sent without default_permissions: the source answers for the caller (modes, ACLs, groups). */
    @Override
    public void access(RequestContext ctx, long nodeid, int mask, StatusReply reply) {
        Inode n = inodes.get(nodeid);
        try (Credentials as = Credentials.of(ctx)) {
            accessAsCaller(n, mask & 7);
        }
        reply.ok();
    }

    @Override
    public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) {
        reply.offset(check(PosixCalls.lseek((int) fh, offset, whence)));
    }

    @Override
    public void copyFileRange(RequestContext ctx, long nodeIn, long fhIn, long offIn, long nodeOut, long fhOut,
                              long offOut, long length, int flags, CountReply reply) {
        Inode out = inodes.get(nodeOut);
        int setId = setIdBits(out);
        long n;
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx)) {
            n = check(PosixCalls.copyFileRange((int) fhIn, offIn, (int) fhOut, offOut, length, flags, a));
        }
        dropCachedModeIfKilled(out, setId);
        reply.count(n);
    }

    // ---- directories -------------------------------------------------------------------------------------

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        Inode n = inodes.get(nodeid);
        if (enforce) { // as the caller, through the magic link: read permission only, as opendir(3) needs
            try (Credentials as = Credentials.of(ctx)) {
                reply.open(reopen(n, PosixCalls.O_RDONLY | PosixCalls.O_DIRECTORY), 0);
            }
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            reply.open(check(PosixCalls.openat(n.fd, a.allocateFrom("."), PosixCalls.O_RDONLY | PosixCalls.O_DIRECTORY | O_CLOEXEC, 0)), 0);
        }
    }

    @Override
    public void releasedir(RequestContext ctx, long nodeid, long fh, int flags, StatusReply reply) {
        PosixCalls.close((int) fh);
        reply.ok();
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        fsync(ctx, nodeid, fh, datasync, reply); // the handle is an opened directory: fsync(2) works alike
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        list(fh, offset, size, (name, ino, type, next) -> reply.add(name, ino, type, next));
        reply.send();
    }

    @Override
    public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) {
        Inode dir = inodes.get(nodeid);
        Attr[] dirAttr = {null};
        list(fh, offset, size, (name, ino, type, next) -> {
            if (name.equals(".") || name.equals("..")) {
                // listed with the inode number getdents gave, as plain readdir lists them
                if (dirAttr[0] == null) dirAttr[0] = attr(dir);
                return reply.add(name, unnamed(withIno(dirAttr[0], ino)), next);
            }
            Entry e;
            try {
                e = lookupEntry(dir, name);
            } catch (FuseException gone) {
                return true; // removed since it was listed
            }
            if (reply.add(name, e, next)) return true;
            inodes.forget(e.nodeid(), 1);
            return false;
        });
        reply.send();
    }

    private interface Sink {
        /** Returns false when the reply is full. */
        boolean add(String name, long ino, int type, long nextOffset);
    }

    /** getdents64 from the directory cookie {@code offset}, until the sink is full or the directory ends. */
    private static void list(long fh, long offset, int size, Sink sink) {
        int fd = (int) fh;
        check(PosixCalls.lseek(fd, offset, SEEK_SET));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(Math.max(size, 4096), 8);
            while (true) {
                long n = check(PosixCalls.getdents64(fd, buf));
                if (n == 0) return;
                for (long pos = 0; pos < n; ) {
                    long ino = buf.get(JAVA_LONG, pos), next = buf.get(JAVA_LONG, pos + 8);
                    int reclen = Short.toUnsignedInt(buf.get(JAVA_SHORT, pos + 16));
                    int dtype = Byte.toUnsignedInt(buf.get(JAVA_BYTE, pos + 18));
                    String name = cString(buf, pos + 19, reclen - 19);
                    if (!sink.add(name, ino, dtype << 12, next)) return;
                    pos += reclen;
                }
            }
        }
    }

    static String cString(MemorySegment buf, long off, long max) {
        long len = 0;
        while (len < max && buf.get(JAVA_BYTE, off + len) != 0) len++;
        return FileNames.decode(buf.asSlice(off, len).toArray(JAVA_BYTE));
    }
}
