package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The statements on inodes and directory entries, each used inside the caller's transaction. */
final class Store {
    private Store() {}

    static final int NAME_MAX = 255;

    /**
     * The node {@code ino}; ESTALE if it is gone. The kernel asks by node id only for nodes it holds, so a gone one
     * was removed behind its back (by another mount, or by SQL): ESTALE makes it look the path up again
     * (LOOKUP_REVAL) where ENOENT would fail a path whose name now leads to another file (a rename over it).
     */
    static Node node(Connection c, long ino) throws SQLException {
        Node n = find(c, ino);
        if (n == null) throw new FuseException(Errno.ESTALE);
        return n;
    }

    /** The node with its stored bytes ({@link Node#STAT_COLUMNS}): for replies that carry attributes. */
    static Node stat(Connection c, long ino) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT " + Node.STAT_COLUMNS + " FROM inodes WHERE ino = ?")) {
            ps.setLong(1, ino);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new FuseException(Errno.ESTALE); // as node()
                return Node.ofStat(rs, 1);
            }
        }
    }

    static Node find(Connection c, long ino) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT " + Node.COLUMNS + " FROM inodes WHERE ino = ?")) {
            ps.setLong(1, ino);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Node.of(rs, 1) : null;
            }
        }
    }

    /** A directory that may get new entries: ENOTDIR if it is none, ENOENT if it was removed. */
    static Node dir(Connection c, long ino) throws SQLException {
        Node n = node(c, ino);
        if (!n.isDir()) throw new FuseException(Errno.ENOTDIR);
        if (n.nlink() == 0) throw new FuseException(Errno.ENOENT);
        return n;
    }

    static Node lookup(Connection c, long parent, byte[] name) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT " + Node.STAT_COLUMNS_I
                + " FROM dentries d JOIN inodes i ON i.ino = d.child WHERE d.parent = ? AND d.name = ?")) {
            ps.setLong(1, parent);
            ps.setBytes(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Node.ofStat(rs, 1) : null;
            }
        }
    }

    /** The parent of a directory (the root is its own parent). */
    static long parentOf(Connection c, long dir) throws SQLException {
        if (dir == 1) return 1;
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT parent FROM dentries WHERE child = ? LIMIT 1")) {
            ps.setLong(1, dir);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 1;
            }
        }
    }

    static long insertInode(Connection c, String type, int mode, int uid, int gid, long nlink, long rdev, long now)
            throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO inodes (type, mode, uid, gid, atime_ns, mtime_ns,"
                + " ctime_ns, size, nlink, rdev) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING ino")) {
            ps.setString(1, type);
            ps.setInt(2, mode & 07777);
            ps.setLong(3, Integer.toUnsignedLong(uid));
            ps.setLong(4, Integer.toUnsignedLong(gid));
            ps.setLong(5, now);
            ps.setLong(6, now);
            ps.setLong(7, now);
            ps.setLong(8, nlink);
            ps.setLong(9, rdev);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static void insertDentry(Connection c, long parent, byte[] name, long child) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO dentries (parent, name, child) VALUES (?, ?, ?)")) {
            ps.setLong(1, parent);
            ps.setBytes(2, name);
            ps.setLong(3, child);
            ps.executeUpdate();
        }
    }

    static void deleteDentry(Connection c, long parent, byte[] name) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM dentries WHERE parent = ? AND name = ?")) {
            ps.setLong(1, parent);
            ps.setBytes(2, name);
            ps.executeUpdate();
        }
    }

    /** A directory's entries changed: mtime and ctime, and its link count by {@code nlinkDelta}. */
    static void dirChanged(Connection c, long dir, long now, int nlinkDelta) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, 
                "UPDATE inodes SET mtime_ns = ?, ctime_ns = ?, nlink = nlink + ? WHERE ino = ?")) {
            ps.setLong(1, now);
            ps.setLong(2, now);
            ps.setInt(3, nlinkDelta);
            ps.setLong(4, dir);
            ps.executeUpdate();
        }
    }

    /** ctime and the link count of a node. */
    static void linksChanged(Connection c, long ino, long now, long nlinkDelta) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET ctime_ns = ?, nlink = nlink + ? WHERE ino = ?")) {
            ps.setLong(1, now);
            ps.setLong(2, nlinkDelta);
            ps.setLong(3, ino);
            ps.executeUpdate();
        }
    }

    static void setLinks(Connection c, long ino, long now, long nlink) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET ctime_ns = ?, nlink = ? WHERE ino = ?")) {
            ps.setLong(1, now);
            ps.setLong(2, nlink);
            ps.setLong(3, ino);
            ps.executeUpdate();
        }
    }

    static boolean isEmptyDir(Connection c, long dir) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT 1 FROM dentries WHERE parent = ? LIMIT 1")) {
            ps.setLong(1, dir);
            try (ResultSet rs = ps.executeQuery()) {
                return !rs.next();
            }
        }
    }

    /**
     * A node without links: kept as an orphan of this session while the kernel still knows it (an open
     * unlinked file), deleted with all its rows otherwise.
     */
    static void unlinked(Connection c, long ino, boolean known, long session) throws SQLException {
        if (known) {
            try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO orphans (ino, session) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
                ps.setLong(1, ino);
                ps.setLong(2, session);
                ps.executeUpdate();
            }
        } else {
            deleteIfUnlinked(c, ino, session);
        }
    }

    /**
     * Deletes a node that has no links and that no session keeps as an orphan (its kernel still knows the
     * node) or has open: for a release, and for cleaning up after a dead session (whose rows are gone).
     * A session's own orphan row counts here, unlike in {@link #deleteIfUnlinked}.
     */
    static void deleteIfUnreferenced(Connection c, long ino) throws SQLException {
        deleteIfUnlinked(c, ino, NO_SESSION);
    }

    /** Stands for "no session left out" (sessions are positive). */
    private static final long NO_SESSION = -1;

    /**
     * Deletes a node that has no links and that no other session keeps as an orphan or has open, for
     * {@code session}'s forget (its orphan row goes either way); with {@link #NO_SESSION} every row counts.
     */
    static void deleteIfUnlinked(Connection c, long ino, long session) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM inodes WHERE ino = ? AND nlink = 0 AND NOT EXISTS"
                + " (SELECT 1 FROM orphans o WHERE o.ino = ? AND o.session <> ?) AND NOT EXISTS"
                + " (SELECT 1 FROM open_files f WHERE f.ino = ? AND f.session <> ?)")) {
            ps.setLong(1, ino);
            ps.setLong(2, ino);
            ps.setLong(3, session);
            ps.setLong(4, ino);
            ps.setLong(5, session);
            if (ps.executeUpdate() == 0 && session != NO_SESSION) {
                try (Sql.Stmt d = Sql.prepare(c, "DELETE FROM orphans WHERE ino = ? AND session = ?")) {
                    d.setLong(1, ino);
                    d.setLong(2, session);
                    d.executeUpdate();
                }
            }
        }
    }

    /** True if {@code ancestor} is {@code dir} or one of its ancestors (walks ".." up to the root). */
    static boolean isAncestor(Connection c, long ancestor, long dir) throws SQLException {
        long d = dir;
        for (int depth = 0; depth < 100_000; depth++) {
            if (d == ancestor) return true;
            if (d == 1) return false;
            d = parentOf(c, d);
        }
        throw new FuseException(Errno.ELOOP);
    }

    static void checkName(byte[] name) {
        if (name.length > NAME_MAX) throw new FuseException(Errno.ENAMETOOLONG);
    }
}
