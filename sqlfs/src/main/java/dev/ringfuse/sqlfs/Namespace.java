package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;

/**
 * The calls that add, remove or move names, each inside the caller's one transaction: either every row
 * changes (entries, link counts, times, orphans) or none does. {@code known} says whether the kernel holds
 * a reference to a node (then a node that loses its last link is kept as an orphan until forgotten).
 */
final class Namespace {
    private static final int S_ISGID = 02000;
    static final int RENAME_NOREPLACE = 1, RENAME_EXCHANGE = 2, RENAME_WHITEOUT = 4;

    private final long session;
    private final LongPredicate known;
    /**
     * Nodes this mount made orphans (rows of {@code orphans} with its session): only these need the database
     * when the kernel forgets them. May hold a few that are no longer orphans (a rolled-back unlink, a
     * re-linked O_TMPFILE); forgetting those costs one transaction that changes nothing.
     */
    final java.util.Set<Long> orphans = ConcurrentHashMap.newKeySet();

    Namespace(long session, LongPredicate known) {
        this.session = session;
        this.known = known;
    }

    /**
     * Creates a node of {@code type} as {@code name} in {@code parent}; returns it. Three statements: the
     * parent's update (which also proves it is a live directory and returns what a new node inherits from
     * it: a setgid directory hands down its group, and its setgid bit to subdirectories; and its default
     * ACL), the inode, the name (whose unique key answers EEXIST); the new row is built here rather than read
     * back. {@code umask}: the caller's, to apply unless a default ACL replaces it (see {@link Acls#inherit});
     * -1 when the kernel applied it and nothing is inherited (no POSIX_ACL, and symlinks).
     */
    Node create(Connection c, long parent, byte[] name, String type, int mode, int umask, int uid, int gid, long rdev,
                long now) throws SQLException {
        Store.checkName(name);
        boolean dir = type.equals("dir");
        int parentMode, parentGid;
        byte[] parentDefault;
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET mtime_ns = ?, ctime_ns = ?, nlink = nlink + ?"
                + " WHERE ino = ? AND type = 'dir' AND nlink > 0 RETURNING mode, gid, (SELECT x.value FROM xattrs x"
                + " WHERE x.ino = inodes.ino AND x.name = '" + dev.ringfuse.access.PosixAcl.DEFAULT + "')")) {
            ps.setLong(1, now);
            ps.setLong(2, now);
            ps.setInt(3, dir ? 1 : 0);
            ps.setLong(4, parent);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    Store.dir(c, parent); // ENOENT or ENOTDIR, as the case is
                    throw new FuseException(Errno.ENOENT);
                }
                parentMode = rs.getInt(1);
                parentGid = (int) rs.getLong(2);
                parentDefault = rs.getBytes(3);
            }
        }
        Acls.Inherited in = Acls.inherit(parentDefault, mode, umask, dir);
        boolean sgid = (parentMode & S_ISGID) != 0;
        int m = (sgid && dir ? in.mode() | S_ISGID : in.mode()) & 07777;
        int g = sgid ? parentGid : gid;
        long nlink = dir ? 2 : 1;
        long ino = Store.insertInode(c, type, m, uid, g, nlink, rdev, now);
        Store.insertDentry(c, parent, name, ino);
        Acls.apply(c, ino, in);
        return new Node(ino, type, m, uid, g, now, now, now, 0, nlink, rdev, 0);
    }

    void link(Connection c, Node n, long parent, byte[] name, long now) throws SQLException {
        Store.checkName(name);
        if (n.isDir()) throw new FuseException(Errno.EPERM);
        Store.dir(c, parent);
        if (Store.lookup(c, parent, name) != null) throw new FuseException(Errno.EEXIST);
        Store.insertDentry(c, parent, name, n.ino());
        Store.linksChanged(c, n.ino(), now, 1);
        Store.dirChanged(c, parent, now, 0);
        if (n.nlink() == 0) { // an O_TMPFILE or unlinked file gets a name again
            try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM orphans WHERE ino = ?")) {
                ps.setLong(1, n.ino());
                ps.executeUpdate();
            }
        }
    }

    void remove(Connection c, long parent, byte[] name, boolean directory, long now) throws SQLException {
        Store.node(c, parent);
        Node child = Store.lookup(c, parent, name);
        if (child == null) throw new FuseException(Errno.ENOENT);
        if (child.isDir() != directory) throw new FuseException(directory ? Errno.ENOTDIR : Errno.EISDIR);
        if (directory && !Store.isEmptyDir(c, child.ino())) throw new FuseException(Errno.ENOTEMPTY);
        Store.deleteDentry(c, parent, name);
        Store.dirChanged(c, parent, now, directory ? -1 : 0);
        dropLink(c, child, now);
    }

    /** The node lost one name: a directory all its links, anything else one. */
    private void dropLink(Connection c, Node n, long now) throws SQLException {
        long left = n.isDir() ? 0 : n.nlink() - 1;
        Store.setLinks(c, n.ino(), now, left);
        if (left == 0) {
            boolean k = known.test(n.ino());
            if (k) orphans.add(n.ino());
            Store.unlinked(c, n.ino(), k, session);
        }
    }

    void rename(Connection c, long from, byte[] name, long to, byte[] newName, int flags, int uid, int gid, long now)
            throws SQLException {
        if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) != 0
                || ((flags & RENAME_EXCHANGE) != 0 && flags != RENAME_EXCHANGE)) {
            throw new FuseException(Errno.EINVAL);
        }
        Store.checkName(newName);
        Store.node(c, from);
        Node toDir = Store.node(c, to);
        Node src = Store.lookup(c, from, name);
        if (src == null) throw new FuseException(Errno.ENOENT);
        Node dst = Store.lookup(c, to, newName);
        boolean exchange = (flags & RENAME_EXCHANGE) != 0;
        if (exchange && dst == null) throw new FuseException(Errno.ENOENT);
        if ((flags & RENAME_NOREPLACE) != 0 && dst != null) throw new FuseException(Errno.EEXIST);
        if (dst != null && src.ino() == dst.ino()) return;
        if (toDir.nlink() == 0) throw new FuseException(Errno.ENOENT);
        if (src.isDir() && from != to && Store.isAncestor(c, src.ino(), to)) throw new FuseException(Errno.EINVAL);
        if (exchange) {
            if (dst.isDir() && from != to && Store.isAncestor(c, dst.ino(), from)) throw new FuseException(Errno.EINVAL);
            setChild(c, from, name, dst.ino());
            setChild(c, to, newName, src.ino());
            if (from != to && src.isDir() != dst.isDir()) {
                int delta = src.isDir() ? 1 : -1; // the directory moves from "from" to "to"
                Store.dirChanged(c, to, now, delta);
                Store.dirChanged(c, from, now, -delta);
            } else {
                Store.dirChanged(c, from, now, 0);
                Store.dirChanged(c, to, now, 0);
            }
            Store.linksChanged(c, src.ino(), now, 0);
            Store.linksChanged(c, dst.ino(), now, 0);
            return;
        }
        if (dst != null) {
            if (src.isDir() && !dst.isDir()) throw new FuseException(Errno.ENOTDIR);
            if (!src.isDir() && dst.isDir()) throw new FuseException(Errno.EISDIR);
            if (dst.isDir() && !Store.isEmptyDir(c, dst.ino())) throw new FuseException(Errno.ENOTEMPTY);
            Store.deleteDentry(c, to, newName);
            if (dst.isDir()) Store.dirChanged(c, to, now, -1);
            dropLink(c, dst, now);
        }
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE dentries SET parent = ?, name = ? WHERE parent = ? AND name = ?")) {
            ps.setLong(1, to);
            ps.setBytes(2, newName);
            ps.setLong(3, from);
            ps.setBytes(4, name);
            ps.executeUpdate();
        }
        if ((flags & RENAME_WHITEOUT) != 0) {
            long w = Store.insertInode(c, "char", 0, uid, gid, 1, 0, now);
            Store.insertDentry(c, from, name, w);
        }
        int moved = src.isDir() && from != to ? 1 : 0;
        Store.dirChanged(c, from, now, -moved);
        if (from != to) Store.dirChanged(c, to, now, moved);
        Store.linksChanged(c, src.ino(), now, 0);
    }

    private static void setChild(Connection c, long parent, byte[] name, long child) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE dentries SET child = ? WHERE parent = ? AND name = ?")) {
            ps.setLong(1, child);
            ps.setLong(2, parent);
            ps.setBytes(3, name);
            ps.executeUpdate();
        }
    }
}
