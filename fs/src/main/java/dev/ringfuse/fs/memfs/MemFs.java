package dev.ringfuse.fs.memfs;

import dev.ringfuse.FileNames;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.StatxReply;
import dev.ringfuse.lowlevel.XattrReply;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * An in-memory filesystem that behaves like tmpfs. Namespace calls are in {@link Namespace}, file I/O in
 * {@link FileOps}; this class answers the kernel and holds the configuration. See {@code fs/DESIGN.md}.
 */
public final class MemFs extends FileOps implements LowLevelFileSystem {
    /**
     * Configuration.
     *
     * @param capacityBytes bytes of file data, symlink targets and xattrs before ENOSPC (statfs total)
     * @param maxInodes     inodes before ENOSPC
     * @param entryTimeout  how long the kernel may cache names, and the absence of names
     * @param attrTimeout   how long the kernel may cache attributes
     * @param writeback     ask for the kernel's writeback cache (the kernel then owns size and mtime)
     * @param chunkSize     largest unit of file memory, a power of two of at least 4 KiB
     * @param rootMode      permission bits of the root directory
     * @param rootUid       owner of the root directory, or -1 for the server's user (as tmpfs's uid=)
     * @param rootGid       group of the root directory, or -1 for the server's group (as tmpfs's gid=)
     */
    public record Options(long capacityBytes, long maxInodes, Duration entryTimeout, Duration attrTimeout,
                          boolean writeback, int chunkSize, int rootMode, int rootUid, int rootGid) {
        /**
         * Checks the values.
         *
         * @throws IllegalArgumentException capacity or inodes not positive, chunkSize not a power of two in
         *         4 KiB..256 KiB
         * @throws NullPointerException a timeout is null
         */
        public Options {
            if (capacityBytes <= 0 || maxInodes < 1) throw new IllegalArgumentException("capacity and inodes must be positive");
            if (Integer.bitCount(chunkSize) != 1 || chunkSize < ChunkStore.PAGE || chunkSize > ChunkStore.MAX_CHUNK) {
                throw new IllegalArgumentException("chunkSize must be a power of two in [4096, 262144]");
            }
            Objects.requireNonNull(entryTimeout);
            Objects.requireNonNull(attrTimeout);
        }

        /**
         * Capacity half of physical memory (tmpfs's default; file data lives off the Java heap, so -Xmx does not
         * bound it), one inode per 4 KiB of capacity, names and attributes cached for {@link #DEFAULT_CACHE}, no
         * writeback cache, 64 KiB chunks, root 1777.
         */
        public static Options defaults() {
            return builder().build();
        }

        /**
         * An hour: every change to memfs goes through this mount's kernel, which updates or drops what it
         * caches for it, and memfs drops the attributes it changes on its own (set-ID bits cleared by
         * fallocate or copy_file_range); fs/DESIGN.md, "Caching".
         */
        public static final Duration DEFAULT_CACHE = Duration.ofHours(1);

        /** @return a builder starting from {@link #defaults()} */
        public static Builder builder() { return new Builder(); }

        /** Builds {@link Options}; every setter returns the builder, values are checked by {@link #build()}. */
        public static final class Builder {
            private long capacityBytes = physicalMemory() / 2;
            private long maxInodes = -1;
            private Duration entryTimeout = DEFAULT_CACHE;
            private Duration attrTimeout = DEFAULT_CACHE;
            private boolean writeback;
            private int chunkSize = 64 * 1024;
            private int rootMode = 01777;
            private int rootUid = -1;
            private int rootGid = -1;

            private Builder() {}

            /** Bytes of data before ENOSPC (default: half of physical memory). */
            public Builder capacityBytes(long v) { capacityBytes = v; return this; }
            /** Inodes before ENOSPC; 0 or less (the default): one per 4 KiB of capacity, at least 1024. */
            public Builder maxInodes(long v) { maxInodes = v; return this; }
            /** How long the kernel may cache names (default an hour). */
            public Builder entryTimeout(Duration v) { entryTimeout = v; return this; }
            /** How long the kernel may cache attributes (default an hour). */
            public Builder attrTimeout(Duration v) { attrTimeout = v; return this; }
            /** Whether to ask for the kernel's writeback cache (default no). */
            public Builder writeback(boolean v) { writeback = v; return this; }
            /** Largest unit of file memory: a power of two, 4 KiB to 256 KiB (default 64 KiB). */
            public Builder chunkSize(int v) { chunkSize = v; return this; }
            /** Permission bits of the root directory (default 1777). */
            public Builder rootMode(int v) { rootMode = v; return this; }
            /** Owner of the root directory, -1 (the default) for the server's user. */
            public Builder rootUid(int v) { rootUid = v; return this; }
            /** Group of the root directory, -1 (the default) for the server's group. */
            public Builder rootGid(int v) { rootGid = v; return this; }

            /**
             * @return the options
             * @throws IllegalArgumentException as the {@link Options} constructor
             */
            public Options build() {
                long inodes = maxInodes > 0 ? maxInodes : Math.max(1024, capacityBytes / ChunkStore.PAGE);
                return new Options(capacityBytes, inodes, entryTimeout, attrTimeout, writeback, chunkSize, rootMode,
                        rootUid, rootGid);
            }
        }
    }

    private static final int S_ISGID = 02000;

    /** MemTotal from /proc/meminfo, as tmpfs sizes itself from totalram_pages; the heap limit if unreadable. */
    static long physicalMemory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception | Error e) {
            // fall through
        }
        return Runtime.getRuntime().maxMemory();
    }

    private final Options options;
    private final Namespace ns;
    /** Set again in init: 0 when memfs checks permissions (see {@link #init}). */
    private volatile long entryNanos;
    /** POSIX_ACL and DONT_MASK were granted; set once in init. */
    private volatile boolean acl;

    /** An empty memfs with {@link Options#defaults()}; mount it with {@link dev.ringfuse.Fuse#mount}. */
    public MemFs() {
        this(Options.defaults());
    }

    /**
     * An empty memfs.
     *
     * @param options sizes, cache timeouts and the root directory's owner and mode
     */
    public MemFs(Options options) {
        super(new InodeTable(new Limits(options.capacityBytes(), options.maxInodes())), options.chunkSize(),
                options.attrTimeout().toNanos());
        this.options = options;
        this.ns = new Namespace(table);
        this.entryNanos = options.entryTimeout().toNanos();
        table.limits.reserveInode(); // the root's slot; its number is fixed
        table.add(new DirNode(ROOT_ID, options.rootMode(),
                options.rootUid() >= 0 ? options.rootUid() : processId("uid"),
                options.rootGid() >= 0 ? options.rootGid() : processId("gid"), null));
        // files still linked at unmount keep their memory while this instance could be mounted again; once it
        // is unreachable, so are they, and their mappings go (the cleaner holds the memory, not this object)
        CLEANER.register(this, memory::close);
    }

    private static final Cleaner CLEANER = Cleaner.create();

    /** The owner of the root: whoever runs the server, as tmpfs gives it to whoever mounts it. */
    private static int processId(String which) {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:" + which);
        } catch (Exception | Error e) {
            return 0;
        }
    }

    /** memfs checks every request itself when the mount has no default_permissions ({@link Guard}). */
    @Override
    public boolean checksPermissions() {
        return true;
    }

    @Override
    public void init(InitContext init) {
        enforce = !init.defaultPermissions();
        notifier = init.notifier();
        // the kernel then checks search permission nowhere: a cached name would let anyone walk through a
        // directory someone else looked up, so every path walk asks again (and is checked in lookup)
        entryNanos = enforce ? 0 : options.entryTimeout().toNanos();
        // not ATOMIC_O_TRUNC: with it the truncation reaches us inside OPEN, before the kernel's own
        // write-access check, so opening a running executable with O_TRUNC would fail with ETXTBSY after
        // its contents were already gone. Without it the kernel truncates through setattr after the check.
        for (Capability c : new Capability[] {Capability.ASYNC_READ,
                Capability.EXPORT_SUPPORT, Capability.READDIRPLUS, Capability.READDIRPLUS_AUTO,
                Capability.PARALLEL_DIROPS, Capability.CACHE_SYMLINKS}) {
            init.want(c);
        }
        // the kernel then decides when privileges die (it knows the caller's capabilities and groups) and
        // tells memfs with a flag; without it, it would ask for security.capability before every write
        init.want(Capability.HANDLE_KILLPRIV_V2);
        // every change to memfs's data goes through this mount, whose page cache the kernel keeps up to date
        // itself; AUTO_INVAL_DATA would drop pages that hold writes still in flight (fs/DESIGN.md, coherence)
        init.wanted().remove(Capability.AUTO_INVAL_DATA);
        // the kernel enforces ACLs (with default_permissions) and caches them; with DONT_MASK it leaves the
        // umask to memfs, which applies it only when the parent has no default ACL (Acls.inherit)
        acl = init.want(Capability.POSIX_ACL) && init.want(Capability.DONT_MASK);
        writeback = options.writeback() && init.want(Capability.WRITEBACK_CACHE);
        init.timeGranularity(1);
    }

    @Override
    public void destroy() {
        closeAllHandles();
        table.forgetAll();
    }

    // ---- names -------------------------------------------------------------------------------------------

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        // open_by_handle_at of an evicted inode arrives as "." looked up in the node itself, of any type
        Guard g = guard(ctx);
        if (g != null && !name.equals(".")) g.search(table.dir(parent));
        Inode n = name.equals(".") ? ns.lookupSelf(table.get(parent)) : ns.lookup(table.dir(parent), name);
        if (n != null) reply.entry(entry(n));
        else if (entryNanos > 0) reply.negative(entryNanos);
        else reply.error(Errno.ENOENT);
    }

    @Override
    public void forget(long nodeid, long nlookup) {
        table.forget(nodeid, nlookup);
    }

    @Override
    public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) {
        DirNode dir = added(ctx, parent);
        int type = mode & Attr.S_IFMT;
        int uid = ctx.uid(), gid = newGid(ctx, dir);
        PosixAcl.Inherited in = inherit(ctx, dir, mode, false);
        int m = in.mode();
        Inode n = switch (type) {
            case Attr.S_IFREG, 0 -> ns.create(dir, name, ino -> newFile(ino, m, uid, gid, 1));
            case Attr.S_IFCHR, Attr.S_IFBLK, Attr.S_IFIFO, Attr.S_IFSOCK ->
                    ns.create(dir, name, ino -> new SpecialNode(ino, type | (m & 07777), uid, gid, rdev));
            default -> throw new FuseException(Errno.EINVAL);
        };
        Acls.apply(n, in, table.limits);
        reply.entry(entry(n));
    }

    @Override
    public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) {
        DirNode dir = added(ctx, parent);
        // a setgid directory hands its group, and its setgid bit, down to new subdirectories
        PosixAcl.Inherited in = inherit(ctx, dir, mode, true);
        int m = (dir.mode() & S_ISGID) != 0 ? in.mode() | S_ISGID : in.mode();
        int uid = ctx.uid(), gid = newGid(ctx, dir);
        DirNode d = ns.create(dir, name, ino -> new DirNode(ino, m, uid, gid, dir));
        Acls.apply(d, in, table.limits);
        reply.entry(entry(d));
    }

    @Override
    public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) {
        DirNode dir = added(ctx, parent);
        byte[] t = FileNames.encode(target);
        if (t.length == 0) throw new FuseException(Errno.ENOENT);
        if (t.length >= Limits.PATH_MAX) throw new FuseException(Errno.ENAMETOOLONG);
        int uid = ctx.uid(), gid = newGid(ctx, dir);
        table.limits.reserve(t.length);
        SymlinkNode link;
        try {
            link = ns.create(dir, name, ino -> new SymlinkNode(ino, uid, gid, t));
        } catch (RuntimeException e) {
            table.limits.release(t.length); // the node never came to be, so it will not give it back
            throw e;
        }
        reply.entry(entry(link));
    }

    @Override
    public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) {
        if (!(table.get(nodeid) instanceof SymlinkNode s)) throw new FuseException(Errno.EINVAL);
        reply.target(s.target);
    }

    @Override
    public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) {
        ns.unlink(table.dir(parent), name, guard(ctx));
        reply.ok();
    }

    @Override
    public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) {
        ns.rmdir(table.dir(parent), name, guard(ctx));
        reply.ok();
    }

    @Override
    public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags,
                       StatusReply reply) {
        DirNode from = table.dir(parent);
        int uid = ctx.uid(), gid = newGid(ctx, from);
        ns.rename(from, name, table.dir(newParent), newName, flags,
                ino -> new SpecialNode(ino, Attr.S_IFCHR, uid, gid, 0), guard(ctx));
        reply.ok();
    }

    @Override
    public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) {
        Inode n = table.get(nodeid);
        Guard g = guard(ctx);
        if (g != null) g.link(n, table.dir(newParent));
        ns.link(n, table.dir(newParent), newName);
        reply.entry(entry(n));
    }

    @Override
    public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) {
        DirNode dir = added(ctx, parent);
        int uid = ctx.uid(), gid = newGid(ctx, dir);
        PosixAcl.Inherited in = inherit(ctx, dir, mode, false);
        FileNode f = ns.create(dir, name, ino -> newFile(ino, in.mode(), uid, gid, 1));
        Acls.apply(f, in, table.limits);
        reply.created(entry(f), openHandle(f, flags), openFlags());
    }

    @Override
    public void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) {
        DirNode dir = added(ctx, parent);
        int uid = ctx.uid(), gid = newGid(ctx, dir);
        PosixAcl.Inherited in = inherit(ctx, dir, mode, false);
        FileNode f = ns.createUnnamed(dir, ino -> newFile(ino, in.mode(), uid, gid, 0));
        Acls.apply(f, in, table.limits);
        reply.created(entry(f), openHandle(f, flags), openFlags());
    }

    // ---- directories -------------------------------------------------------------------------------------

    private final DirHandles dirHandles = new DirHandles();

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        DirNode d = table.dir(nodeid);
        Guard g = guard(ctx);
        if (g != null) g.opendir(d);
        reply.open(dirHandles.open(), 0);
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        DirNode dir = table.dir(nodeid);
        dir.content.readLock().lock();
        try {
            long end = dirHandles.passEnd(fh, offset, dir);
            boolean room = offset >= DirEntries.DOT || reply.add(".", dir.ino, Attr.S_IFDIR, DirEntries.DOT);
            if (room && offset < DirEntries.DOTDOT) room = reply.add("..", dir.parent().ino, Attr.S_IFDIR, DirEntries.DOTDOT);
            if (room) {
                for (DirEntries.Dirent d : dir.entries.after(Math.max(offset, DirEntries.DOTDOT), end)) {
                    if (!reply.add(d.name(), d.node().ino, d.node().type(), d.cookie())) break;
                }
            }
        } finally {
            dir.content.readLock().unlock();
        }
        reply.send();
    }

    @Override
    public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) {
        DirNode dir = table.dir(nodeid);
        dir.content.readLock().lock();
        try {
            long end = dirHandles.passEnd(fh, offset, dir);
            // "." and ".." carry node id 0: listed, not instantiated, no lookup counted
            boolean room = offset >= DirEntries.DOT || reply.add(".", unnamed(dir), DirEntries.DOT);
            if (room && offset < DirEntries.DOTDOT) room = reply.add("..", unnamed(dir.parent()), DirEntries.DOTDOT);
            if (room) {
                for (DirEntries.Dirent d : dir.entries.after(Math.max(offset, DirEntries.DOTDOT), end)) {
                    if (!reply.add(d.name(), entry(d.node()), d.cookie())) break;
                    d.node().lookedUp();
                }
            }
        } finally {
            dir.content.readLock().unlock();
        }
        reply.send();
    }

    @Override
    public void releasedir(RequestContext ctx, long nodeid, long fh, int flags, StatusReply reply) {
        dirHandles.release(fh);
        reply.ok();
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        reply.ok();
    }

    // ---- attributes --------------------------------------------------------------------------------------

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        reply.attr(table.get(nodeid).attr(), attrNanos);
    }

    @Override
    public void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) {
        final int basicStatsAndBtime = 0x7ff | 0x800;
        reply.statx(table.get(nodeid).attr(), basicStatsAndBtime, attrNanos);
    }

    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr s, AttrReply reply) {
        Inode n = table.get(nodeid);
        Guard g = guard(ctx);
        int mode = g == null ? s.mode() : g.setattr(n, s, s.hasFh() && writable(s.fh()));
        Timespec now = Timespec.now();
        int oldGid = n.gid(); // membership counts for the group before a chown, as the kernel judges it
        if (s.hasSize()) truncate(n, s.size(), now);
        if (s.hasMode()) {
            n.chmod(mode);
            Acls.chmod(n, mode, table.limits);
        }
        if (s.hasUid() || s.hasGid()) n.chown(s.hasUid() ? s.uid() : n.uid(), s.hasGid() ? s.gid() : n.gid());
        // the kernel asks for the kill on truncate by a caller without CAP_FSETID and on every chown
        if (s.killSuidGid() && !n.isDir()) n.killPrivileges(() -> inGroup(ctx, oldGid), table.limits);
        else if ((s.hasSize() || s.hasUid() || s.hasGid()) && !n.isDir()) {
            n.xattrs.removeIfPresent(XattrMap.SECURITY_CAPABILITY, table.limits);
        }
        Timespec a = s.hasAtime() ? (s.atimeNow() ? now : new Timespec(s.atimeSec(), s.atimeNsec())) : null;
        Timespec m = s.hasMtime() ? (s.mtimeNow() ? now : new Timespec(s.mtimeSec(), s.mtimeNsec())) : null;
        Timespec c = s.hasCtime() ? new Timespec(s.ctimeSec(), s.ctimeNsec()) : now;
        n.times(a, m, c);
        reply.attr(n.attr(), attrNanos);
    }

    @Override
    public void access(RequestContext ctx, long nodeid, int mask, StatusReply reply) {
        // only sent without default_permissions; the same rules as every other check, supplementary groups too
        if (new Guard(ctx).access(table.get(nodeid), mask)) reply.ok();
        else reply.error(Errno.EACCES);
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        reply.statfs(table.limits.statfs());
    }

    @Override
    public void syncfs(RequestContext ctx, long nodeid, StatusReply reply) {
        reply.ok();
    }

    // ---- xattrs ------------------------------------------------------------------------------------------

    @Override
    public void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) {
        XattrMap.checkNamespace(name);
        Inode n = table.get(nodeid);
        Guard g = guard(ctx);
        if (g != null) g.xattr(n, name, true);
        byte[] v = value.toArray(ValueLayout.JAVA_BYTE);
        if (Acls.isAcl(name)) Acls.set(n, name, v, flags, ctx, table.limits);
        else n.xattrs.set(name, v, flags, table.limits);
        n.changed(Timespec.now());
        reply.ok();
    }

    @Override
    public void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) {
        XattrMap.checkNamespace(name);
        Inode n = table.get(nodeid);
        Guard g = guard(ctx);
        if (g != null) g.xattr(n, name, false);
        reply.value(n.xattrs.get(name));
    }

    @Override
    public void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) {
        // the kernel passes our list on unfiltered, default_permissions or not: trusted.* names are root's
        java.util.List<String> names = table.get(nodeid).xattrs.names();
        reply.names(ctx.uid() == 0 ? names : names.stream().filter(n -> !n.startsWith("trusted.")).toList());
    }

    @Override
    public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) {
        XattrMap.checkNamespace(name);
        Inode n = table.get(nodeid);
        Guard g = guard(ctx);
        if (g != null) g.xattr(n, name, true);
        if (name.equals(dev.ringfuse.access.Permissions.SECURITY_CAPABILITY)
                && !dev.ringfuse.access.Permissions.mayDropCapability(dev.ringfuse.access.Caller.of(ctx), n.subject())) {
            throw new FuseException(Errno.EPERM);
        }
        n.xattrs.remove(name, table.limits);
        n.changed(Timespec.now());
        reply.ok();
    }

    // ---- helpers -----------------------------------------------------------------------------------------

    /** The directory {@code parent}, in which the caller may add a name. */
    private DirNode added(RequestContext ctx, long parent) {
        DirNode dir = table.dir(parent);
        Guard g = guard(ctx);
        if (g != null) g.add(dir);
        return dir;
    }

    private Entry entry(Inode n) {
        return new Entry(n.ino, table.generation, n.attr(), entryNanos, attrNanos);
    }

    private static Entry unnamed(Inode n) {
        return new Entry(0, 0, n.attr(), 0, 0);
    }

    /** The mode and ACLs of a new inode; without POSIX_ACL the kernel has applied the umask already. */
    private PosixAcl.Inherited inherit(RequestContext ctx, DirNode dir, int mode, boolean directory) {
        return acl ? Acls.inherit(dir, mode, ctx.umask(), directory) : new PosixAcl.Inherited(mode, null, null);
    }

    /** New files belong to the caller's group, or to the directory's group if it is setgid (BSD semantics). */
    private static int newGid(RequestContext ctx, DirNode dir) {
        return (dir.mode() & S_ISGID) != 0 ? dir.gid() : ctx.gid();
    }

    /** Statistics for tests and tools: inodes in use and bytes of capacity in use. */
    long usedInodes() { return table.limits.usedInodes(); }

    long usedBytes() { return table.limits.usedBytes(); }
}
