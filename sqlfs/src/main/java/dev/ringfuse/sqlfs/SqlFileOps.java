package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.OpenFlags;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatusReply;
import java.lang.foreign.MemorySegment;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Regular-file I/O: open handles, read, write, truncate, fsync. Each read and each write is one
 * transaction, so a write that spans chunks is seen whole or not at all, by the mount and by SQL readers.
 */
abstract sealed class SqlFileOps implements LowLevelFileSystem permits SqlFs {
    static final int O_TRUNC = 01000, O_APPEND = 02000;
    static final String SECURITY_CAPABILITY = "security.capability";

    /** What an open file remembers: only O_APPEND matters, the kernel enforces the rest. */
    private record Handle(long ino, boolean append) {}

    final Database db;
    final long attrNanos;
    private final ConcurrentHashMap<Long, Handle> handles = new ConcurrentHashMap<>();
    private final AtomicLong nextFh = new AtomicLong(1);
    /**
     * Files changed since their last fsync, with {@link Database#restarts()} as it was before the change:
     * if the server restarted since, the change may be lost and fsync answers EIO (once, as Linux reports a
     * lost writeback). PostgreSQL only; an entry stays until the file's next fsync.
     */
    private final ConcurrentHashMap<Long, Long> unsynced = new ConcurrentHashMap<>();

    /**
     * Open handles per node on this mount, PostgreSQL only: the first open of a node records it in
     * {@code open_files} and the last release removes it, so that an unlink on another mount keeps the
     * node (and its bytes) until this mount closes it. A node unlinked meanwhile is deleted at that last
     * release unless yet another mount has it open. Rows of a mount that crashed are removed by the others
     * (SessionGuard: at mount and every half minute). See {@link Opens} for the protocol.
     */
    private final ConcurrentHashMap<Long, Opens> opens = new ConcurrentHashMap<>();

    /**
     * The open handles of one node and the lock that orders its row's insert and delete. The database work
     * runs under this node's lock only, never inside a {@code ConcurrentHashMap.compute} (which would block
     * every other key of its bin for the length of a transaction). A counter that reached zero is
     * {@code retired}: its row is deleted (or was never written) and it leaves the map before its lock is let
     * go, so an open that waited on it starts again with a fresh counter and writes the row after the delete.
     */
    private static final class Opens {
        final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        int count;
        boolean retired;
    }

    SqlFileOps(Database db, long attrNanos) {
        this.db = db;
        this.attrNanos = attrNanos;
    }

    long openHandle(long ino, int flags) {
        long fh = nextFh.getAndIncrement();
        handles.put(fh, new Handle(ino, (flags & O_APPEND) != 0));
        return fh;
    }

    /**
     * SQLite: this mount is the database's only one and other writers' changes invalidate the kernel's
     * cache (change feed), so cached pages stay valid across opens. PostgreSQL: close-to-open consistency,
     * each open drops the file's cached pages. FLUSH is needed only where locks live in the database.
     */
    abstract int openFlags();

    /** Counts an open handle of {@code ino}; the first one on this mount is recorded in the database. */
    void holdOpen(long ino) {
        if (db.dialect != Dialect.POSTGRES) return;
        for (;;) {
            Opens o = opens.computeIfAbsent(ino, k -> new Opens());
            o.lock.lock();
            try {
                if (o.retired) continue; // its last release is done: start again with a fresh counter
                if (o.count == 0) {
                    try {
                        db.write(c -> {
                            try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO open_files (ino, session) SELECT ino, ?"
                                    + " FROM inodes WHERE ino = ? ON CONFLICT DO NOTHING")) {
                                ps.setLong(1, db.session);
                                ps.setLong(2, ino);
                                // nothing inserted: a row from before, or the node is gone (the open answers ENOENT)
                                if (ps.executeUpdate() == 0) Store.node(c, ino);
                            }
                            return null;
                        });
                    } catch (RuntimeException e) {
                        retire(ino, o);
                        throw e;
                    }
                }
                o.count++;
                return;
            } finally {
                o.lock.unlock();
            }
        }
    }

    /** Whether this mount holds {@code ino} open (PostgreSQL; counted by {@link #holdOpen}). */
    private boolean heldOpen(long ino) {
        Opens o = opens.get(ino);
        if (o == null) return false;
        o.lock.lock();
        try {
            return !o.retired && o.count > 0;
        } finally {
            o.lock.unlock();
        }
    }

    /** The release of one handle of {@code ino}: the last one on this mount lets the node go if it has no name. */
    void dropOpen(long ino) {
        if (db.dialect != Dialect.POSTGRES) return;
        Opens o = opens.get(ino);
        if (o == null) return;
        o.lock.lock();
        try {
            if (o.retired || o.count == 0) return;
            if (--o.count > 0) return;
            try {
                db.freeing(c -> {
                    try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM open_files WHERE ino = ? AND session = ?")) {
                        ps.setLong(1, ino);
                        ps.setLong(2, db.session);
                        ps.executeUpdate();
                    }
                    // this mount's own orphan row counts: the kernel may be opening the node again right now
                    Store.deleteIfUnreferenced(c, ino);
                    return null;
                });
            } finally {
                // a failed delete leaves the row until this mount ends (removed then, or by the next mount after
                // a crash); the next open writes it again either way
                retire(ino, o);
            }
        } finally {
            o.lock.unlock();
        }
    }

    /**
     * The row of a file created open, written by the create's own transaction (PostgreSQL): one transaction
     * per create instead of two. Counted by {@link #createdOpen} once it committed.
     */
    void recordCreatedOpen(Connection c, long ino) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO open_files (ino, session) VALUES (?, ?)")) {
            ps.setLong(1, ino);
            ps.setLong(2, db.session);
            ps.executeUpdate();
        }
    }

    /** A file created open now has one handle here; the kernel cannot open or release it before the reply. */
    void createdOpen(long ino) {
        if (db.dialect != Dialect.POSTGRES) return;
        Opens o = new Opens();
        o.count = 1;
        opens.put(ino, o);
    }

    /** Under {@code o}'s lock: the counter is done with and leaves the map (a waiting open starts again). */
    private void retire(long ino, Opens o) {
        o.retired = true;
        opens.remove(ino, o);
    }

    /** Unmount: this mount's open files are closed (the kernel sends no RELEASE for them any more). */
    void closeAllOpen() {
        db.freeing(c -> {
            java.util.List<Long> inos = new java.util.ArrayList<>();
            try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM open_files WHERE session = ? RETURNING ino")) {
                ps.setLong(1, db.session);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) inos.add(rs.getLong(1));
                }
            }
            for (long ino : inos) Store.deleteIfUnlinked(c, ino, db.session);
            return null;
        });
        opens.clear();
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        Node n = db.query(c -> Store.node(c, nodeid));
        if (n.isDir()) throw new FuseException(Errno.EISDIR);
        // PostgreSQL: a node with no name that this mount does not hold open was reached through a name this kernel
        // still caches and another mount renamed over or unlinked; ESTALE makes the kernel look the path up again
        // (LOOKUP_REVAL) and open what the name is now. A reopen of an unlinked file (/proc/PID/fd/N) is of one
        // this mount holds open.
        if (db.dialect == Dialect.POSTGRES && n.nlink() == 0 && !heldOpen(nodeid)) throw new FuseException(Errno.ESTALE);
        if ((flags & O_TRUNC) != 0) db.write(c -> truncate(c, ctx, Store.node(c, nodeid), 0, now()));
        holdOpen(nodeid);
        reply.open(openHandle(nodeid, flags), openFlags());
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        MemorySegment buf = reply.buffer();
        int n = db.query(c -> Chunks.readFile(c, nodeid, db.chunkSize, offset, size, buf));
        if (n < 0) throw new FuseException(Errno.ENOENT);
        reply.commit(n);
    }

    /** Notes that {@code ino} (new, so not known before) came to be while the restart count was {@code restarts}. */
    void markUnsynced(long ino, long restarts) {
        if (db.dialect == Dialect.POSTGRES) unsynced.putIfAbsent(ino, restarts);
    }

    /** Notes that {@code ino} changes now (call before the transaction). */
    void changing(long ino) {
        // SQLite: a crash of this process loses no commit, and nothing else can lose them but the machine
        if (db.dialect == Dialect.POSTGRES) unsynced.putIfAbsent(ino, db.restarts());
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags,
                      CountReply reply) {
        changing(nodeid);
        Handle h = handles.get(fh);
        long now = now();
        boolean[] killed = {false};
        long n = db.write(c -> {
            long off = offset, len = data.byteSize();
            if (h != null && h.append) {
                Node f = Store.node(c, nodeid);
                if (!f.isFile()) throw new FuseException(Errno.EINVAL);
                off = f.size();
            }
            if (off + len < 0) throw new FuseException(Errno.EFBIG);
            // the size, the times and what the set-ID rule needs in one statement (it was a read and an update)
            int mode, gid;
            try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET size = CASE WHEN size < ? THEN ? ELSE size END,"
                    + " mtime_ns = ?, ctime_ns = ? WHERE ino = ? AND type = 'file' RETURNING mode, gid")) {
                ps.setLong(1, off + len);
                ps.setLong(2, off + len);
                ps.setLong(3, now);
                ps.setLong(4, now);
                ps.setLong(5, nodeid);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        Store.node(c, nodeid); // ENOENT if gone
                        throw new FuseException(Errno.EINVAL);
                    }
                    mode = rs.getInt(1);
                    gid = (int) rs.getLong(2);
                }
            }
            Chunks.write(c, nodeid, db.chunkSize, off, data);
            if ((writeFlags & WRITE_KILL_SUIDGID) != 0) {
                int killedTo = dev.ringfuse.access.Permissions.killedMode(mode, () -> inGroup(ctx, gid));
                if (killedTo != mode) {
                    killed[0] = true;
                    try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET mode = ? WHERE ino = ?")) {
                        ps.setInt(1, killedTo);
                        ps.setLong(2, nodeid);
                        ps.executeUpdate();
                    }
                }
            }
            dropCapability(c, nodeid);
            return len;
        });
        if (killed[0]) dropCachedAttributes(nodeid);
        reply.count(n);
    }

    /** The kernel's notifier, once INIT has given it (see {@link #dropCachedAttributes}). */
    volatile dev.ringfuse.lowlevel.Notifier notifier;

    /**
     * The mode changed as a side effect of a write (set-ID bits killed) and the write reply carries no
     * attributes: without this the kernel would show the old bits until its attribute timeout. Attribute
     * only (offset -1): the kernel takes no inode or page lock for it, so it is safe before the reply.
     */
    void dropCachedAttributes(long nodeid) {
        dev.ringfuse.lowlevel.Notifier nt = notifier;
        if (nt == null) return;
        try {
            nt.invalInode(nodeid, -1, 0);
        } catch (java.io.IOException e) {
            System.getLogger("dev.ringfuse.sqlfs").log(System.Logger.Level.DEBUG, "invalInode " + nodeid + ": " + e.getMessage());
        }
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        reply.ok();
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock,
                        StatusReply reply) {
        Handle h = handles.remove(fh);
        try {
            if (h != null) dropOpen(h.ino());
        } catch (RuntimeException e) {
            // the row stays until this mount ends (its rows are removed then, or by the next mount after a crash)
        }
        reply.ok();
    }

    /** Every commit is already in the database; fsync makes them durable (see {@link Database#durable}). */
    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        durable(nodeid);
        reply.ok();
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        durable(nodeid);
        reply.ok();
    }

    private void durable(long ino) {
        Long before = unsynced.get(ino);
        db.durable();
        if (before != null) {
            unsynced.remove(ino, before);
            if (before < db.restarts()) throw new FuseException(Errno.EIO); // may have been lost with the server
        }
    }

    @Override
    public void syncfs(RequestContext ctx, long nodeid, StatusReply reply) {
        db.durable();
        reply.ok();
    }

    static final int FALLOC_FL_KEEP_SIZE = 1, FALLOC_FL_PUNCH_HOLE = 2, FALLOC_FL_ZERO_RANGE = 16;
    static final int SEEK_DATA = 3, SEEK_HOLE = 4;
    /** fallocate ranges above this size are checked against statfs's free space first. */
    private static final long CHECK_SPACE_ABOVE = 64L << 20;

    /**
     * fallocate, one transaction. Mode 0 and KEEP_SIZE store zeros in every chunk of the range that holds less
     * (the space is taken in the database and counted in st_blocks; no database can promise it stays free for
     * the later write, see DESIGN.md "Holes"); KEEP_SIZE may so store zeros past the size. PUNCH_HOLE|KEEP_SIZE
     * deletes the whole chunks of the range and zeroes (or cuts short) the partial ones; ZERO_RANGE punches and
     * allocates. COLLAPSE, INSERT, UNSHARE and PUNCH_HOLE without KEEP_SIZE: EOPNOTSUPP. mtime and ctime change
     * for every mode, and a caller other than root loses set-ID bits, as on tmpfs (the kernel sends no kill
     * flag with fallocate).
     */
    @Override
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length,
                          StatusReply reply) {
        if ((mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) != 0
                || (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)
                || ((mode & FALLOC_FL_PUNCH_HOLE) != 0 && (mode & FALLOC_FL_KEEP_SIZE) == 0)) {
            throw new FuseException(Errno.EOPNOTSUPP);
        }
        if (offset < 0 || length <= 0 || offset + length < 0) throw new FuseException(Errno.EINVAL);
        // a range larger than the free space fails at once, as on ext4, rather than after writing zeros until the
        // database reports it full (and then rolling all of them back)
        if ((mode & FALLOC_FL_PUNCH_HOLE) == 0 && length > CHECK_SPACE_ABOVE) {
            dev.ringfuse.lowlevel.StatFs s = Space.statfs(db);
            if (length / s.bsize() > s.bavail()) throw new FuseException(Errno.ENOSPC);
        }
        changing(nodeid);
        long now = now();
        boolean[] killed = {false};
        db.write(c -> {
            Node f = Store.node(c, nodeid);
            if (!f.isFile()) throw new FuseException(f.isDir() ? Errno.EISDIR : Errno.ENODEV);
            if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) != 0) Chunks.zero(c, nodeid, db.chunkSize, offset, length);
            if ((mode & FALLOC_FL_PUNCH_HOLE) == 0) Chunks.allocate(c, nodeid, db.chunkSize, offset, length);
            long size = (mode & FALLOC_FL_KEEP_SIZE) == 0 ? Math.max(f.size(), offset + length) : f.size();
            int m = ctx.uid() == 0 ? f.mode() : dev.ringfuse.access.Permissions.killedMode(f.mode(), () -> inGroup(ctx, f.gid()));
            killed[0] = m != f.mode();
            try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET size = ?, mode = ?, mtime_ns = ?, ctime_ns = ? WHERE ino = ?")) {
                ps.setLong(1, size);
                ps.setInt(2, m);
                ps.setLong(3, now);
                ps.setLong(4, now);
                ps.setLong(5, nodeid);
                ps.executeUpdate();
            }
            dropCapability(c, nodeid);
            return null;
        });
        if (killed[0]) dropCachedAttributes(nodeid);
        reply.ok();
    }

    /**
     * SEEK_DATA / SEEK_HOLE from the chunks that exist (a missing chunk, and the rest of a short one, is a hole):
     * one indexed query besides the size, in one read transaction. ENXIO at or past the size, and for
     * SEEK_DATA when no data follows; the end of the file counts as a hole.
     */
    @Override
    public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, dev.ringfuse.lowlevel.LseekReply reply) {
        if (whence != SEEK_DATA && whence != SEEK_HOLE) throw new FuseException(Errno.EINVAL);
        if (offset < 0) throw new FuseException(Errno.ENXIO);
        long r = db.read(c -> {
            Node f = Store.node(c, nodeid);
            if (!f.isFile()) throw new FuseException(f.isDir() ? Errno.EISDIR : Errno.EINVAL);
            if (offset >= f.size()) return -1L;
            long at = whence == SEEK_DATA ? Chunks.seekData(c, nodeid, db.chunkSize, offset)
                    : Math.min(f.size(), Chunks.seekHole(c, nodeid, db.chunkSize, offset));
            return at >= f.size() && whence == SEEK_DATA ? -1L : at;
        });
        if (r < 0) throw new FuseException(Errno.ENXIO);
        reply.offset(r);
    }

    /** Truncates (or extends) a file to {@code size}; mtime and ctime change even if the size does not (tmpfs). */
    Node truncate(Connection c, RequestContext ctx, Node f, long size, long now) throws SQLException {
        if (f.isDir()) throw new FuseException(Errno.EISDIR);
        if (!f.isFile()) throw new FuseException(Errno.EINVAL);
        if (size < f.size()) Chunks.truncate(c, db.dialect, f.ino(), db.chunkSize, size);
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET size = ?, mtime_ns = ?, ctime_ns = ? WHERE ino = ?")) {
            ps.setLong(1, size);
            ps.setLong(2, now);
            ps.setLong(3, now);
            ps.setLong(4, f.ino());
            ps.executeUpdate();
        }
        return Store.node(c, f.ino());
    }

    static void dropCapability(Connection c, long ino) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM xattrs WHERE ino = ? AND name = ?")) {
            ps.setLong(1, ino);
            ps.setString(2, SECURITY_CAPABILITY);
            ps.executeUpdate();
        }
    }

    /** Whether the caller is in group {@code gid}, supplementary groups included; root counts as a member. */
    static boolean inGroup(RequestContext ctx, int gid) {
        return ctx.uid() == 0 || dev.ringfuse.access.Caller.of(ctx).inGroup(gid);
    }

    static long now() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    static int cacheFlags(boolean keep, boolean noflush) {
        return (keep ? OpenFlags.KEEP_CACHE : 0) | (noflush ? OpenFlags.NOFLUSH : 0);
    }
}
