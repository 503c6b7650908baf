package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.LockReply;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.StatxReply;
import java.sql.ResultSet;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A filesystem whose files live in a SQL database (SQLite or PostgreSQL), on the low-level inode API:
 * node ids are {@code inodes.ino}. Every operation is one database transaction. See sqlfs/DESIGN.md and the
 * schema contract in docs/sql-schema.md.
 */
public final class SqlFs extends SqlFileOps {
    private static final int S_ISGID = 02000;
    private static final int PATH_MAX = 4096;

    private final SqlFsOptions options;
    private final long entryNanos;
    /** Lookup references the kernel holds, by node id (absent = none). */
    private final ConcurrentHashMap<Long, Long> lookups = new ConcurrentHashMap<>();
    private final Namespace ns;
    private final Xattrs xattrs;
    private final ChangeFeed feed;
    private final SessionGuard guard;
    /** Locks in the database: PostgreSQL only (one SQLite mount per file: the kernel's own lock manager). */
    private final Locks locks;

    private SqlFs(SqlFsOptions options, Database db, SessionGuard guard) {
        super(db, options.attrTimeout().toNanos());
        this.options = options;
        this.guard = guard;
        this.entryNanos = options.entryTimeout().toNanos();
        this.ns = new Namespace(db.session, lookups::containsKey);
        this.xattrs = new Xattrs(db);
        this.locks = db.dialect == Dialect.POSTGRES ? new Locks(db) : null;
        this.feed = ChangeFeed.of(db, lookups::containsKey, guard, () -> java.util.Set.copyOf(lookups.keySet()));
    }

    /**
     * Opens (creating and migrating as needed) the database at {@code options.url()}; throws
     * {@link SqlFsException} with a one-line reason if it cannot be served.
     */
    public static SqlFs open(SqlFsOptions options) {
        long session = SessionGuard.newSessionId();
        SessionGuard guard = SessionGuard.acquire(options.url(), session);
        Database db;
        try {
            db = new Database(options.url(), options.readers(), options.chunkSize(), session);
        } catch (RuntimeException e) {
            guard.close();
            throw e;
        }
        try {
            guard.cleanOrphans(db);
        } catch (RuntimeException e) {
            db.close();
            guard.close();
            throw Errors.atMount(options.url(), e);
        }
        return new SqlFs(options, db, guard);
    }

    /** The chunk size of this database's file data, in bytes. */
    public int chunkSize() { return db.chunkSize; }

    @Override
    int openFlags() {
        return db.dialect == Dialect.SQLITE ? cacheFlags(true, true) : cacheFlags(false, false);
    }

    @Override
    public void init(InitContext init) {
        // READDIRPLUS without READDIRPLUS_AUTO: every listing brings the attributes along. With AUTO the kernel
        // alternates (plus only after a stat of an entry it did not know), so ls -l cost a LOOKUP for most
        // entries: one request and one query each, where a readdirplus answers ~25 entries with one query
        for (Capability c : new Capability[] {Capability.ASYNC_READ, Capability.EXPORT_SUPPORT, Capability.READDIRPLUS,
                Capability.PARALLEL_DIROPS, Capability.CACHE_SYMLINKS, Capability.HANDLE_KILLPRIV_V2}) {
            init.want(c);
        }
        if (locks != null) {
            init.want(Capability.POSIX_LOCKS);
            init.want(Capability.FLOCK_LOCKS);
        }
        // SQLite: one mount per database, and the change feed drops what others change through SQL, so the
        // kernel's page cache stays right without AUTO_INVAL_DATA, whose whole-file invalidation on a changed
        // mtime drops pages whose write is still on its way here (DESIGN.md, "Page cache coherence").
        // PostgreSQL opens drop the cache instead (close-to-open across mounts) and keep it.
        if (db.dialect == Dialect.SQLITE) init.wanted().remove(Capability.AUTO_INVAL_DATA);
        // as memfs: the kernel enforces ACLs (POSIX_ACL turns default_permissions on) and caches them; with
        // DONT_MASK it sends the unmasked mode and the umask, which sqlfs applies only where no default ACL
        // replaces it (Acls.inherit)
        acl = init.want(Capability.POSIX_ACL) && init.want(Capability.DONT_MASK);
        init.timeGranularity(1);
        notifier = init.notifier();
        feed.start(init.notifier());
        if (db.dialect == Dialect.POSTGRES) {
            sweeper = Thread.ofVirtual().name("sqlfs-sweeper").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        Thread.sleep(SWEEP_MS);
                        guard.cleanOrphans(db);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        // the database is away: tried again next time
                    }
                }
            });
        }
    }

    /** POSIX_ACL and DONT_MASK were granted; set once in init. */
    private volatile boolean acl;

    /** The umask a new node's creation applies (unless a default ACL replaces it), or -1: the kernel applied it. */
    private int umask(RequestContext ctx) {
        return acl ? ctx.umask() : -1;
    }

    /** How often a PostgreSQL mount removes what crashed mounts left (open files, orphans, locks). */
    private static final long SWEEP_MS = 30_000;
    private volatile Thread sweeper;

    @Override
    public void destroy() {
        feed.close();
        Thread sw = sweeper;
        if (sw != null) sw.interrupt();
        try {
            if (locks != null) locks.releaseSession();
            if (db.dialect == Dialect.POSTGRES) closeAllOpen();
            for (Long ino : List.copyOf(ns.orphans)) db.write(c -> {
                Store.deleteIfUnlinked(c, ino, db.session);
                return null;
            });
        } catch (RuntimeException ignored) {
            // orphans left behind are removed at the next mount
        }
        lookups.clear();
        db.close();
        guard.close();
    }

    // ---- names -------------------------------------------------------------------------------------------

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        byte[] b = FileNames.encode(name);
        Store.checkName(b);
        // the kernel looks names up in directories only: one statement, unless "." or ".."
        Node n = name.equals(".") || name.equals("..") ? db.read(c -> name.equals(".") ? Store.stat(c, parent)
                : Store.stat(c, Store.parentOf(c, parent))) : db.query(c -> Store.lookup(c, parent, b));
        if (n != null) reply.entry(entry(n));
        else if (entryNanos > 0) reply.negative(entryNanos);
        else reply.error(Errno.ENOENT);
    }

    @Override
    public void forget(long nodeid, long nlookup) {
        Long left = lookups.computeIfPresent(nodeid, (k, v) -> v - nlookup > 0 ? v - nlookup : null);
        if (left == null && ns.orphans.remove(nodeid)) { // a node with names needs nothing from the database
            try {
                db.freeing(c -> {
                    Store.deleteIfUnlinked(c, nodeid, db.session);
                    return null;
                });
            } catch (RuntimeException e) {
                // the orphan stays and is removed at the next mount
            }
        }
    }

    @Override
    public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) {
        String type = Node.typeName(mode);
        reply.entry(entry(create(ctx, parent, name, type, mode, rdev)));
    }

    @Override
    public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) {
        reply.entry(entry(create(ctx, parent, name, "dir", mode, 0)));
    }

    private Node create(RequestContext ctx, long parent, String name, String type, int mode, long rdev) {
        return create(ctx, parent, name, type, mode, rdev, false);
    }

    /** {@code open}: the file is created open (CREATE), recorded in open_files in the same transaction. */
    private Node create(RequestContext ctx, long parent, String name, String type, int mode, long rdev, boolean open) {
        byte[] b = FileNames.encode(name);
        long now = now();
        changing(parent);
        long restartsBefore = db.restarts();
        boolean record = open && db.dialect == Dialect.POSTGRES;
        Node n = db.write(c -> {
            Node created = ns.create(c, parent, b, type, mode, umask(ctx), ctx.uid(), ctx.gid(), rdev, now);
            if (record) recordCreatedOpen(c, created.ino());
            return created;
        });
        markUnsynced(n.ino(), restartsBefore);
        return n;
    }

    @Override
    public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) {
        byte[] t = FileNames.encode(target);
        if (t.length == 0) throw new FuseException(Errno.ENOENT);
        if (t.length >= PATH_MAX) throw new FuseException(Errno.ENAMETOOLONG);
        byte[] b = FileNames.encode(name);
        long now = now();
        Node n = db.write(c -> {
            Node l = ns.create(c, parent, b, "symlink", 0777, -1, ctx.uid(), ctx.gid(), 0, now);
            try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO symlinks (ino, target) VALUES (?, ?)")) {
                ps.setLong(1, l.ino());
                ps.setBytes(2, t);
                ps.executeUpdate();
            }
            try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET size = ? WHERE ino = ?")) {
                ps.setLong(1, t.length);
                ps.setLong(2, l.ino());
                ps.executeUpdate();
            }
            return Store.stat(c, l.ino());
        });
        reply.entry(entry(n));
    }

    @Override
    public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) {
        byte[] t = db.read(c -> {
            try (Sql.Stmt ps = Sql.prepare(c, "SELECT target FROM symlinks WHERE ino = ?")) {
                ps.setLong(1, nodeid);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new FuseException(Errno.EINVAL);
                    return rs.getBytes(1);
                }
            }
        });
        reply.target(t);
    }

    @Override
    public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) {
        byte[] b = FileNames.encode(name);
        long now = now();
        db.freeing(c -> {
            ns.remove(c, parent, b, false, now);
            return null;
        });
        reply.ok();
    }

    @Override
    public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) {
        byte[] b = FileNames.encode(name);
        long now = now();
        db.freeing(c -> {
            ns.remove(c, parent, b, true, now);
            return null;
        });
        reply.ok();
    }

    @Override
    public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags,
                       StatusReply reply) {
        byte[] a = FileNames.encode(name), b = FileNames.encode(newName);
        long now = now();
        db.freeing(c -> {
            Node from = Store.node(c, parent);
            int gid = (from.mode() & S_ISGID) != 0 ? from.gid() : ctx.gid();
            ns.rename(c, parent, a, newParent, b, flags, ctx.uid(), gid, now);
            return null;
        });
        reply.ok();
    }

    @Override
    public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) {
        byte[] b = FileNames.encode(newName);
        long now = now();
        Node n = db.write(c -> {
            ns.link(c, Store.node(c, nodeid), newParent, b, now);
            return Store.stat(c, nodeid);
        });
        reply.entry(entry(n));
    }

    @Override
    public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) {
        Node n = create(ctx, parent, name, "file", mode, 0, true);
        Entry e = entry(n);
        createdOpen(n.ino());
        reply.created(e, openHandle(n.ino(), flags), openFlags());
    }

    @Override
    public void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) {
        long now = now();
        Node n = db.write(c -> {
            Node dir = Store.dir(c, parent);
            int gid = (dir.mode() & S_ISGID) != 0 ? dir.gid() : ctx.gid();
            int umask = umask(ctx);
            Acls.Inherited in = Acls.inherit(umask < 0 ? null : Acls.get(c, parent, Acls.DEFAULT), mode, umask, false);
            long ino = Store.insertInode(c, "file", in.mode(), ctx.uid(), gid, 0, 0, now);
            Acls.apply(c, ino, in);
            ns.orphans.add(ino);
            Store.unlinked(c, ino, true, db.session);
            if (db.dialect == Dialect.POSTGRES) recordCreatedOpen(c, ino); // created open, as by CREATE
            return Store.stat(c, ino);
        });
        createdOpen(n.ino());
        reply.created(entry(n), openHandle(n.ino(), flags), openFlags());
    }

    // ---- directories -------------------------------------------------------------------------------------

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        Node n = db.query(c -> Store.node(c, nodeid));
        if (!n.isDir()) throw new FuseException(Errno.ENOTDIR);
        reply.open(0, 0);
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        for (Listing.Listed l : Listing.list(db, nodeid, offset, size / 32 + 1, false)) { // 24 bytes + a name of up to 8
            if (!reply.add(l.name(), l.ino(), l.mode(), l.cookie())) break;
        }
        reply.send();
    }

    @Override
    public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) {
        for (Listing.Listed l : Listing.list(db, nodeid, offset, size / 160 + 1, true)) {
            boolean dots = l.cookie() <= 2;
            Entry e = dots ? new Entry(0, 0, l.node().attr(), 0, 0) : entry(l.node(), false);
            if (!reply.add(l.name(), e, l.cookie())) break;
            if (!dots) lookups.merge(l.ino(), 1L, Long::sum);
        }
        reply.send();
    }

    // ---- attributes --------------------------------------------------------------------------------------

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        reply.attr(db.query(c -> Store.stat(c, nodeid)).attr(), attrNanos);
    }

    @Override
    public void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) {
        reply.statx(db.query(c -> Store.stat(c, nodeid)).attr(), 0x7ff, attrNanos);
    }

    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr s, AttrReply reply) {
        long now = now();
        Database.Work<Node> work = c -> {
            Node f = Store.node(c, nodeid);
            // the group before a chown, as the kernel judges it; asked only when it decides (it may read /proc)
            int gidBefore = f.gid();
            if (s.hasSize()) f = truncate(c, ctx, f, s.size(), now);
            int mode = s.hasMode() ? s.mode() & 07777 : f.mode();
            int uid = s.hasUid() ? s.uid() : f.uid(), gid = s.hasGid() ? s.gid() : f.gid();
            if (s.killSuidGid() && !f.isDir()) {
                mode = dev.ringfuse.access.Permissions.killedMode(mode, () -> inGroup(ctx, gidBefore));
            }
            if ((s.killSuidGid() || s.hasSize() || s.hasUid() || s.hasGid()) && !f.isDir()) dropCapability(c, nodeid);
            long a = s.hasAtime() ? (s.atimeNow() ? now : ns(s.atimeSec(), s.atimeNsec())) : f.atimeNs();
            long m = s.hasMtime() ? (s.mtimeNow() ? now : ns(s.mtimeSec(), s.mtimeNsec())) : f.mtimeNs();
            long ct = s.hasCtime() ? ns(s.ctimeSec(), s.ctimeNsec()) : now;
            try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET mode = ?, uid = ?, gid = ?, atime_ns = ?,"
                    + " mtime_ns = ?, ctime_ns = ? WHERE ino = ?")) {
                ps.setInt(1, mode);
                ps.setLong(2, Integer.toUnsignedLong(uid));
                ps.setLong(3, Integer.toUnsignedLong(gid));
                ps.setLong(4, a);
                ps.setLong(5, m);
                ps.setLong(6, ct);
                ps.setLong(7, nodeid);
                ps.executeUpdate();
            }
            if (s.hasMode()) Acls.chmod(c, nodeid, mode);
            return Store.stat(c, nodeid);
        };
        Node n = s.hasSize() ? db.freeing(work) : db.write(work);
        reply.attr(n.attr(), attrNanos);
    }

    /** Seconds and nanoseconds as nanoseconds, saturated at the range of a 64-bit count (years 1678..2262). */
    private static long ns(long sec, int nsec) {
        if (sec > Long.MAX_VALUE / 1_000_000_000L - 1) return Long.MAX_VALUE;
        if (sec < Long.MIN_VALUE / 1_000_000_000L + 1) return Long.MIN_VALUE;
        return sec * 1_000_000_000L + nsec;
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        reply.statfs(Space.statfs(db));
    }

    // ---- xattrs ------------------------------------------------------------------------------------------

    @Override
    public void setxattr(RequestContext ctx, long nodeid, String name, java.lang.foreign.MemorySegment value, int flags,
                         StatusReply reply) {
        xattrs.set(ctx, nodeid, name, value.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), flags, now());
        reply.ok();
    }

    @Override
    public void getxattr(RequestContext ctx, long nodeid, String name, int size, dev.ringfuse.lowlevel.XattrReply reply) {
        reply.value(xattrs.get(nodeid, name));
    }

    @Override
    public void listxattr(RequestContext ctx, long nodeid, int size, dev.ringfuse.lowlevel.XattrReply reply) {
        // trusted.* is root's namespace: its names are not listed to anyone else (as the kernel's filesystems do)
        List<String> names = xattrs.names(nodeid);
        reply.names(ctx.uid() == 0 ? names : names.stream().filter(n -> !n.startsWith("trusted.")).toList());
    }

    @Override
    public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) {
        if (name.equals(dev.ringfuse.access.Permissions.SECURITY_CAPABILITY)) {
            // the kernel's capability kill reaches here for a stranger's chown(-1, -1) too (Permissions)
            dev.ringfuse.access.Subject s = db.query(c -> Acls.subject(c, nodeid));
            if (!dev.ringfuse.access.Permissions.mayDropCapability(dev.ringfuse.access.Caller.of(ctx), s)) {
                throw new FuseException(Errno.EPERM);
            }
        }
        xattrs.remove(nodeid, name, now());
        reply.ok();
    }

    // ---- locks (PostgreSQL) ------------------------------------------------------------------------------

    @Override
    public void getlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, LockReply reply) {
        if (locks == null) throw new FuseException(Errno.ENOSYS);
        FileLock other = locks.conflict(nodeid, owner, 'p', lock);
        reply.lock(other != null ? other : new FileLock(lock.start(), lock.end(), FileLock.F_UNLCK, 0));
    }

    @Override
    public void setlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, boolean sleep, StatusReply reply) {
        if (locks == null) throw new FuseException(Errno.ENOSYS);
        locks.set(ctx, nodeid, owner, 'p', lock, sleep, reply, reply::ok);
    }

    @Override
    public void flock(RequestContext ctx, long nodeid, long fh, long owner, int op, StatusReply reply) {
        if (locks == null) throw new FuseException(Errno.ENOSYS);
        int type = (op & Locks.LOCK_UN) != 0 ? FileLock.F_UNLCK
                : (op & Locks.LOCK_EX) != 0 ? FileLock.F_WRLCK : FileLock.F_RDLCK;
        FileLock whole = new FileLock(0, FileLock.TO_EOF, type, ctx.pid());
        locks.set(ctx, nodeid, owner, 'f', whole, (op & Locks.LOCK_NB) == 0 && type != FileLock.F_UNLCK, reply, reply::ok);
    }

    /** A close releases the closing process's record locks on the file (POSIX). */
    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        if (locks != null) locks.releaseAll(nodeid, lockOwner, 'p');
        reply.ok();
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock,
                        StatusReply reply) {
        if (locks != null && flockUnlock) locks.releaseAll(nodeid, lockOwner, 'f');
        super.release(ctx, nodeid, fh, flags, lockOwner, flockUnlock, reply);
    }

    // ---- helpers -----------------------------------------------------------------------------------------

    /** An entry for a reply that counts a lookup: the count is taken before the kernel can forget it. */
    private Entry entry(Node n) {
        return entry(n, true);
    }

    private Entry entry(Node n, boolean count) {
        if (count) lookups.merge(n.ino(), 1L, Long::sum);
        return new Entry(n.ino(), 0, n.attr(), entryNanos, attrNanos);
    }

    /** Node ids the kernel currently holds (tests). */
    int knownInodes() { return lookups.size(); }
}
