package dev.ringfuse.fs.passthrough;

import dev.ringfuse.fs.io.ThreadRings;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.passthrough.Inodes.Inode;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatFs;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.StatxReply;
import dev.ringfuse.lowlevel.XattrReply;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import static dev.ringfuse.fs.passthrough.PosixCalls.AT_EMPTY_PATH;
import static dev.ringfuse.fs.passthrough.PosixCalls.AT_FDCWD;
import static dev.ringfuse.fs.passthrough.PosixCalls.AT_SYMLINK_NOFOLLOW;
import static dev.ringfuse.fs.passthrough.PosixCalls.O_CLOEXEC;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Mirrors a source directory: every call is carried out on the source with fd-relative system calls, so
 * nothing outside the source can be reached (see {@link SourceTree}). New files belong to the caller
 * ({@link Credentials}); reads and writes go through the kernel's passthrough when it is available, else
 * through this server with pread/pwrite into and out of the request buffers. Design: {@code fs/DESIGN.md}.
 */
public final class PassthroughFs extends FileIo {
    /** Kernel passthrough: AUTO uses it when negotiable (root, Linux 6.9+), ON fails the mount when it is not. */
    public enum KernelMode { AUTO, ON, OFF }

    /**
     * What to mirror and how.
     *
     * @param source       the directory to mirror
     * @param kernel       kernel passthrough of reads and writes
     * @param entryTimeout how long the kernel may cache names
     * @param attrTimeout  how long the kernel may cache attributes (changes made directly in the source
     *                     show up after this)
     * @param uring        serve reads and writes through each thread's own io_uring (else pread/pwrite)
     *                     when kernel passthrough is off; falls back to pread/pwrite if io_uring is
     *                     unavailable
     */
    public record Options(Path source, KernelMode kernel, Duration entryTimeout, Duration attrTimeout, boolean uring) {
        /** @throws NullPointerException source or kernel is null */
        public Options {
            Objects.requireNonNull(source);
            Objects.requireNonNull(kernel);
        }

        /** AUTO passthrough, 1 s caches. */
        public static Options of(Path source) {
            return new Options(source, KernelMode.AUTO, Duration.ofSeconds(1), Duration.ofSeconds(1), true);
        }

        /** A copy with another kernel passthrough choice for reads and writes (AUTO, ON or OFF). */
        public Options withKernel(KernelMode mode) {
            return new Options(source, mode, entryTimeout, attrTimeout, uring);
        }

        /** A copy that serves reads and writes through io_uring (true) or pread/pwrite when not passed through. */
        public Options withUring(boolean on) {
            return new Options(source, kernel, entryTimeout, attrTimeout, on);
        }
    }

    private static final int UTIME_NOW = (1 << 30) - 1, UTIME_OMIT = (1 << 30) - 2;
    private static final int O_TMPFILE = 020000000 | PosixCalls.O_DIRECTORY;

    /**
     * Mirrors {@code source} with {@link Options#of} defaults.
     *
     * @param source the directory to mirror; opened now and held until {@link #destroy()}
     * @throws dev.ringfuse.FuseException with ENOENT, ENOTDIR or EACCES when it cannot be opened as a directory
     */
    public PassthroughFs(Path source) {
        this(Options.of(source));
    }

    /**
     * Mirrors {@code options.source()}.
     *
     * @param options what to mirror and how
     * @throws dev.ringfuse.FuseException with ENOENT, ENOTDIR or EACCES when the source cannot be opened as a
     *         directory
     */
    public PassthroughFs(Options options) {
        super(openRoot(options.source().toAbsolutePath().toString()), options.entryTimeout().toNanos(),
                options.attrTimeout().toNanos(), new KernelPassthrough(options.kernel()), dataRings(options));
    }

    private static ThreadRings dataRings(Options options) {
        if (!options.uring()) return null;
        String why = ThreadRings.unavailableReason();
        if (why == null) return new ThreadRings(-1);
        System.getLogger("dev.ringfuse").log(System.Logger.Level.INFO, "passthrough: io_uring unavailable (" + why
                + "); reads and writes use pread/pwrite");
        return null;
    }

    /** Whether reads and writes of regular files bypass this server (decided at INIT). */
    public boolean kernelPassthrough() {
        return kernel.on();
    }

    /**
     * Checks permissions itself when it can run calls as their callers (the server runs as root): the
     * source filesystem then checks them. See {@link Credentials}.
     */
    @Override
    public boolean checksPermissions() {
        return Credentials.canSwitch();
    }

    /** POSIX_ACL and DONT_MASK were granted; set once in init. */
    private volatile boolean acl;

    @Override
    public void init(InitContext init) {
        enforce = !init.defaultPermissions();
        // the kernel checks search permission nowhere then: a cached name would let anyone walk through a
        // directory someone else looked up, so every path walk asks again (as the caller)
        if (enforce) entryNanos = 0;
        notifier = init.notifier();
        // not ATOMIC_O_TRUNC: the kernel's truncation after its own checks keeps ETXTBSY from truncating first
        for (Capability c : new Capability[] {Capability.ASYNC_READ, Capability.EXPORT_SUPPORT,
                Capability.READDIRPLUS, Capability.READDIRPLUS_AUTO, Capability.PARALLEL_DIROPS}) {
            init.want(c);
        }
        init.timeGranularity(1);
        // ACLs live in the source (SourceAcls): the kernel enforces and caches them; DONT_MASK so that a default
        // ACL on the parent, not the umask, decides a new inode's mode
        acl = init.want(Capability.POSIX_ACL) && init.want(Capability.DONT_MASK);
        kernel.init(init, dev.ringfuse.sys.Libc.geteuid() == 0);
        // not with kernel passthrough: the server never sees those writes, and the kernel would then leave the
        // set-ID bits of a file an unprivileged caller wrote to the server
        killsPrivileges = !kernel.on() && init.want(Capability.HANDLE_KILLPRIV_V2);
    }

    @Override
    public void destroy() {
        closeRings();
        inodes.clear();
    }

    // ---- names -------------------------------------------------------------------------------------------

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        Entry e;
        try (Credentials as = Credentials.of(ctx, enforce)) {
            e = lookupEntry(inodes.get(parent), name);
        } catch (FuseException ex) {
            if (ex.errno() != Errno.ENOENT || entryNanos == 0) throw ex;
            reply.negative(entryNanos);
            return;
        }
        reply.entry(e);
    }

    @Override
    public void forget(long nodeid, long nlookup) {
        inodes.forget(nodeid, nlookup);
    }

    @Override
    public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) {
        Inode p = inodes.get(parent);
        // FUSE carries rdev in new_encode_dev format; glibc wants its own dev_t
        long major = (rdev & 0xfff00) >>> 8, minor = (rdev & 0xff) | ((rdev >>> 12) & 0xfff00);
        long dev = ((major & 0xfff) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xff) | ((minor & ~0xffL) << 12);
        SourceAcls.Create c = SourceAcls.create(acl, ctx, p, mode);
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx)) {
            check(PosixCalls.mknodat(p.fd, name(a, name), c.mode(), dev));
        }
        reply.entry(madeWith(p, name, c));
    }

    @Override
    public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) {
        Inode p = inodes.get(parent);
        SourceAcls.Create c = SourceAcls.create(acl, ctx, p, mode);
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx)) {
            check(PosixCalls.mkdirat(p.fd, name(a, name), c.mode()));
        }
        reply.entry(madeWith(p, name, c));
    }

    @Override
    public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) {
        Inode p = inodes.get(parent);
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx)) {
            check(PosixCalls.symlinkat(bytes(a, target), p.fd, name(a, name)));
        }
        reply.entry(lookupEntry(p, name));
    }

    /**
     * The entry of a node just made with {@code mode}: the server's own umask also applied to it, so the
     * permission bits the kernel asked for (its caller's umask already applied) are restored when they
     * differ — unless the parent's default ACL decided them (the source then ignored the server's umask).
     */
    private Entry madeWith(Inode parent, String name, SourceAcls.Create c) {
        Entry e = lookupEntry(parent, name);
        int mode = c.mode();
        if (c.inherits() || (e.attr().mode() & 0777) == (mode & 0777)) return e;
        Inode n = inodes.get(e.nodeid());
        chmod(n, (e.attr().mode() & 07000) | (mode & 0777));
        return new Entry(e.nodeid(), e.generation(), attr(n), e.entryTimeoutNanos(), e.attrTimeoutNanos());
    }

    @Override
    public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) {
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx, enforce)) {
            check(PosixCalls.unlinkat(inodes.get(parent).fd, name(a, name), 0));
        }
        reply.ok();
    }

    @Override
    public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) {
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx, enforce)) {
            check(PosixCalls.unlinkat(inodes.get(parent).fd, name(a, name), PosixCalls.AT_REMOVEDIR));
        }
        reply.ok();
    }

    @Override
    public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags, StatusReply reply) {
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx, enforce)) {
            check(PosixCalls.renameat2(inodes.get(parent).fd, name(a, name), inodes.get(newParent).fd, name(a, newName), flags));
        }
        reply.ok();
    }

    @Override
    public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) {
        Inode p = inodes.get(newParent);
        // through the magic link, as libfuse's passthrough does: linkat(AT_EMPTY_PATH) would need
        // CAP_DAC_READ_SEARCH, which the caller's credentials do not have
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx, enforce)) {
            check(PosixCalls.linkat(AT_FDCWD, a.allocateFrom(inodes.get(nodeid).procPath()), p.fd, name(a, newName),
                    PosixCalls.AT_SYMLINK_FOLLOW));
        }
        reply.entry(lookupEntry(p, newName));
    }

    @Override
    public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) {
        Inode p = inodes.get(parent);
        SourceAcls.Create c = SourceAcls.create(acl, ctx, p, mode);
        int fd;
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx)) {
            int f = (flags | PosixCalls.O_CREAT | PosixCalls.O_NOFOLLOW | O_CLOEXEC) & ~PosixCalls.O_NOCTTY;
            fd = check(PosixCalls.openat2(p.fd, name(a, name), f, c.mode() & 07777, RESOLVE_IN_TREE, a));
        }
        Entry e;
        try {
            e = madeWith(p, name, c);
        } catch (RuntimeException ex) {
            PosixCalls.close(fd);
            throw ex;
        }
        created(e, fd, flags, reply);
    }

    @Override
    public void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) {
        Inode p = inodes.get(parent);
        SourceAcls.Create c = SourceAcls.create(acl, ctx, p, mode);
        int fd;
        try (Arena a = Arena.ofConfined(); Credentials as = Credentials.of(ctx)) {
            fd = check(PosixCalls.openat2(p.fd, a.allocateFrom("."), (flags & ~PosixCalls.O_CREAT) | O_TMPFILE | O_CLOEXEC,
                    c.mode() & 07777, RESOLVE_IN_TREE, a));
        }
        try (Arena a = Arena.ofConfined()) {
            int path = check(PosixCalls.openat(AT_FDCWD, a.allocateFrom("/proc/self/fd/" + fd), PosixCalls.O_PATH | O_CLOEXEC, 0));
            MemorySegment st = a.allocate(Statx.SIZE, 8);
            statx(path, st, a);
            Inode n = inodes.ref(Statx.key(st), path, S_IFREG);
            if (!c.inherits() && (Statx.mode(st) & 0777) != (c.mode() & 0777)) {
                chmod(n, (Statx.mode(st) & 07000) | (c.mode() & 0777));
            }
            created(new Entry(n.nodeid, 0, attr(n), entryNanos, attrNanos), fd, flags, reply);
        } catch (RuntimeException ex) {
            PosixCalls.close(fd);
            throw ex;
        }
    }

    @Override
    public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(4096);
            long n = check(PosixCalls.readlinkat(inodes.get(nodeid).fd, a.allocateFrom(""), buf));
            reply.target(buf.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    // ---- attributes --------------------------------------------------------------------------------------

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        reply.attr(attr(inodes.get(nodeid)), attrNanos);
    }

    @Override
    public void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(Statx.SIZE, 8);
            statx(inodes.get(nodeid).fd, st, a);
            reply.statx(Statx.attr(st), Statx.mask(st) & STATX_MASK, attrNanos);
        }
    }

    /**
     * As the caller, so that the source applies the kernel's rules (owner-only chmod and utimens, chown,
     * S_ISGID dropped for outsiders, set-user-ID cleared by a non-owner's truncate, ...). A mode change
     * that only clears set-user-ID/set-group-ID is the kernel's privilege kill for a writer (without
     * HANDLE_KILLPRIV_V2, i.e. with kernel passthrough on): it runs as the server, for a caller that may write
     * the file; so does the empty SETATTR of {@link #isEmptyKill}.
     */
    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr c, AttrReply reply) {
        Inode n = inodes.get(nodeid);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment proc = a.allocateFrom(n.procPath()), empty = a.allocateFrom("");
            if (isEmptyKill(ctx, n, c, proc)) {
                // under V2 nothing to do here: the write's WRITE_KILL_SUIDGID (or the source, for fallocate and
                // copy_file_range) kills, also for a writer whose permission went after its open
                if (!killsPrivileges) {
                    synchronized (n) {
                        chmod(n, attr(n).mode() & 05777);
                    }
                }
                reply.attr(attr(n), attrNanos);
                return;
            }
            if (c.hasMode() && n.type != S_IFLNK) {
                synchronized (n) { // against a write's privilege kill (FileIo.killPrivileges) reading the old mode
                    if (isPrivilegeKill(ctx, n, c.mode(), proc)) {
                        chmod(n, killedMode(ctx, n, c.mode()));
                    } else {
                        try (Credentials as = Credentials.of(ctx)) {
                            chmod(n, c.mode());
                        }
                    }
                }
            }
            // the kernel sends "mtime now" with every truncation: part of the truncation the caller was allowed,
            // not a utimens (which a non-owner may not do), so set as the server
            boolean truncationTime = c.hasSize() && !c.hasAtime() && c.mtimeNow();
            try (Credentials as = Credentials.of(ctx)) {
                setattrAsCaller(n, c, proc, empty, a, !truncationTime);
            }
            if (truncationTime) utimens(n, c, proc, empty, a);
        }
        reply.attr(attr(n), attrNanos);
    }

    /**
     * The mode of a privilege kill, completed: FUSE's fallback (fuse_setattr without HANDLE_KILLPRIV) asks to
     * clear setgid only from a group-executable file, while the kernel's own filesystems (tmpfs measured,
     * should_remove_suid) also clear it for a writer outside the file's group, and the source would too if
     * the chmod ran as the caller: it runs as the server, so the server applies that part of the rule.
     */
    private static int killedMode(RequestContext ctx, Inode n, int mode) {
        if ((mode & 02000) == 0 || ctx.uid() == 0) return mode;
        return dev.ringfuse.access.Caller.of(ctx).inGroup(attr(n).gid()) ? mode : mode & ~02000;
    }

    /**
     * The kernel's privilege kill when only setgid must go (a writer outside the group of a file that is not
     * group-executable): FUSE's fallback finds nothing it would clear and sends a SETATTR that changes nothing.
     * Done as the caller that would be chown(-1, -1), which a non-owner may not do: the write failed with
     * EPERM (measured: buffered write by uid 65534 to a root-owned 2767 file, kernel passthrough on and off).
     * tmpfs lets the write pass and clears setgid, so the server does that, for a caller that may write.
     */
    private boolean isEmptyKill(RequestContext ctx, Inode n, SetAttr c, MemorySegment proc) {
        // only for a file: a writer's kill never comes for a directory, and chown(dir, -1, -1) clears nothing
        if (!isEmptyChange(c) || ctx.uid() == 0 || n.type != S_IFREG) return false;
        Attr now = attr(n);
        if (now.uid() == ctx.uid()) return false;
        if (killsPrivileges) {
            // HANDLE_KILLPRIV_V2: the kernel's file_remove_privs before a write reaches here with its kill
            // flags stripped, for any set-ID file (and so does chown(-1, -1)): answered as a no-op, which
            // changes nothing, so that the write is not failed first (the write's own flag kills)
            return (now.mode() & 06000) != 0;
        } else {
            if ((now.mode() & 02010) != 02000) return false;
            if (dev.ringfuse.access.Caller.of(ctx).inGroup(now.gid())) return false;
        }
        return writableBy(ctx, proc);
    }

    private boolean isPrivilegeKill(RequestContext ctx, Inode n, int mode, MemorySegment proc) {
        Attr now = attr(n);
        if (!dev.ringfuse.access.Permissions.isPrivilegeKill(new dev.ringfuse.access.Subject(now.mode(), now.uid(), now.gid()), mode)) {
            return false;
        }
        return writableBy(ctx, proc);
    }

    /** A SETATTR that names no attribute to change (only ctime, the handle, the lock owner). */
    private static boolean isEmptyChange(SetAttr c) {
        return (c.valid() & ~(SetAttr.FATTR_CTIME | SetAttr.FATTR_FH | SetAttr.FATTR_LOCKOWNER)) == 0;
    }

    private void setattrAsCaller(Inode n, SetAttr c, MemorySegment proc, MemorySegment empty, Arena a, boolean times) {
        if (c.hasUid() || c.hasGid() || isEmptyChange(c)) { // chown(-1, -1) still changes ctime
            check(PosixCalls.fchownat(n.fd, empty, c.hasUid() ? c.uid() : -1, c.hasGid() ? c.gid() : -1,
                    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
        }
        if (c.hasSize()) {
            // an O_TRUNC through a read-only open arrives with that open's handle: ftruncate refuses it
            // (EINVAL), and truncating by name checks the caller's write permission instead
            int r = c.hasFh() ? PosixCalls.ftruncate((int) c.fh(), c.size()) : -Errno.EINVAL.code();
            if (r == -Errno.EINVAL.code() || r == -Errno.EBADF.code()) r = PosixCalls.truncate(proc, c.size());
            check(r);
        }
        if (times) utimens(n, c, proc, empty, a);
    }

    private static void utimens(Inode n, SetAttr c, MemorySegment proc, MemorySegment empty, Arena a) {
        if (!c.hasAtime() && !c.hasMtime()) return;
        MemorySegment ts = a.allocate(32, 8);
        ts.set(JAVA_LONG, 0, c.atimeSec());
        ts.set(JAVA_LONG, 8, c.atimeNow() ? UTIME_NOW : c.hasAtime() ? c.atimeNsec() : UTIME_OMIT);
        ts.set(JAVA_LONG, 16, c.mtimeSec());
        ts.set(JAVA_LONG, 24, c.mtimeNow() ? UTIME_NOW : c.hasMtime() ? c.mtimeNsec() : UTIME_OMIT);
        check(n.type == S_IFLNK
                ? PosixCalls.utimensat(n.fd, empty, ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)
                : PosixCalls.utimensat(AT_FDCWD, proc, ts, 0));
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(120, 8);
            check(PosixCalls.fstatfs(inodes.get(nodeid).fd, s));
            reply.statfs(new StatFs(s.get(JAVA_LONG, 16), s.get(JAVA_LONG, 24), s.get(JAVA_LONG, 32),
                    s.get(JAVA_LONG, 40), s.get(JAVA_LONG, 48), (int) s.get(JAVA_LONG, 8), (int) s.get(JAVA_LONG, 64),
                    (int) s.get(JAVA_LONG, 72)));
        }
    }

    // ---- extended attributes -----------------------------------------------------------------------------

    @Override
    public void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) {
        Inode n = inodes.get(nodeid);
        xattrNamespace(ctx, name, true);
        try (Credentials as = Credentials.of(ctx, enforce)) {
            Xattrs.set(n, name, value, flags);
        }
        // run as the caller, the source cleared setgid itself (with the caller's groups); as the server it did not
        if (acl && !enforce) {
            Attr a = attr(n);
            if ((a.mode() & 02000) != 0 && SourceAcls.killSgid(ctx, name, a.gid())) chmod(n, a.mode() & 05777);
        }
        reply.ok();
    }

    @Override
    public void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) {
        Inode n = inodes.get(nodeid);
        xattrNamespace(ctx, name, false);
        byte[] v;
        try (Credentials as = Credentials.of(ctx, enforce)) {
            v = Xattrs.get(n, name);
        }
        reply.value(v);
    }

    @Override
    public void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) {
        java.util.List<String> names = Xattrs.list(inodes.get(nodeid));
        // this server may see trusted.* (it runs as root); the kernel passes our list on unfiltered
        reply.names(ctx.uid() == 0 ? names : names.stream().filter(x -> !x.startsWith("trusted.")).toList());
    }

    @Override
    public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) {
        Inode n = inodes.get(nodeid);
        if (ctx.uid() != 0 && name.equals(dev.ringfuse.access.Permissions.SECURITY_CAPABILITY) && ownsOrMayWrite(ctx, n)) {
            // the kernel's privilege kill before a write, truncate or chown by this caller (cap_inode_killpriv
            // removes it unchecked; refused as the caller, it failed the write with EIO), or an explicit removal
            // by a caller the kernel found to hold CAP_SETFCAP over the inode (cap_inode_removexattr: a
            // user-namespace root whose namespace maps the file's owner, for one). Not for others: under V2 a
            // non-owner's chown(-1, -1) reaches the kill too, which must not strip a file it may not write
            Xattrs.remove(n, name);
            reply.ok();
            return;
        }
        xattrNamespace(ctx, name, true);
        try (Credentials as = Credentials.of(ctx, enforce)) {
            Xattrs.remove(n, name);
        }
        reply.ok();
    }

    /** Whether the caller owns {@code n} or may write it (checked as the caller by the source). */
    private static boolean ownsOrMayWrite(RequestContext ctx, Inode n) {
        if (attr(n).uid() == ctx.uid()) return true;
        try (Arena a = Arena.ofConfined()) {
            return writableBy(ctx, a.allocateFrom(n.procPath()));
        }
    }

    /**
     * trusted.* and security.* need CAP_SYS_ADMIN (security.capability CAP_SETFCAP), which a thread running
     * as the caller keeps: checked here. (The kernel checks them too, default_permissions or not.) The rest
     * (user.* permission bits, sticky directories, ACLs' owner rule) the source checks as the caller.
     */
    private static void xattrNamespace(RequestContext ctx, String name, boolean write) {
        if (ctx.uid() == 0) return;
        if (name.startsWith("trusted.")) throw new FuseException(write ? Errno.EPERM : Errno.ENODATA);
        if (write && name.startsWith("security.")) throw new FuseException(Errno.EPERM);
    }

    @Override
    public void syncfs(RequestContext ctx, long nodeid, StatusReply reply) {
        reply.ok(); // every write already reached the source; its own syncfs is the source's business
    }
}
