package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Extended attributes in table {@code xattrs}; each call one transaction that also moves the inode's ctime. */
final class Xattrs {
    private static final int XATTR_CREATE = 1, XATTR_REPLACE = 2;

    private final Database db;

    Xattrs(Database db) {
        this.db = db;
    }

    /** The namespaces a filesystem may hold (the kernel checks who may write which). */
    static void checkNamespace(String name) {
        if (name.startsWith("user.") || name.startsWith("trusted.") || name.startsWith("security.")
                || name.equals("system.posix_acl_access") || name.equals("system.posix_acl_default")) {
            return;
        }
        throw new FuseException(Errno.EOPNOTSUPP);
    }

    /** An ACL ({@link Acls#isAcl}) is validated and kept in step with the mode, in the same transaction. */
    void set(dev.ringfuse.lowlevel.RequestContext ctx, long ino, String name, byte[] value, int flags, long now) {
        checkNamespace(name);
        db.write(c -> {
            Node n = Store.node(c, ino);
            boolean exists = get(c, ino, name) != null;
            if ((flags & XATTR_CREATE) != 0 && exists) throw new FuseException(Errno.EEXIST);
            if ((flags & XATTR_REPLACE) != 0 && !exists) throw new FuseException(Errno.ENODATA);
            if (Acls.isAcl(name)) {
                Acls.set(c, n, name, value, ctx);
                Store.linksChanged(c, ino, now, 0);
                return null;
            }
            put(c, ino, name, value);
            Store.linksChanged(c, ino, now, 0);
            return null;
        });
    }

    /**
     * One statement (no BEGIN/COMMIT on SQLite): the kernel asks for security.capability before the first
     * write to every file it has not yet marked as having none, so this runs once per file created and
     * written (the metadata benchmark's create phase).
     */
    byte[] get(long ino, String name) {
        checkNamespace(name);
        byte[][] v = db.query(c -> {
            try (Sql.Stmt ps = Sql.prepare(c, "SELECT i.ino, x.value FROM inodes i LEFT JOIN xattrs x"
                    + " ON x.ino = i.ino AND x.name = ? WHERE i.ino = ?")) {
                ps.setString(1, name);
                ps.setLong(2, ino);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? new byte[][] {rs.getBytes(2)} : null;
                }
            }
        });
        if (v == null) throw new FuseException(Errno.ENOENT);
        if (v[0] == null) throw new FuseException(Errno.ENODATA);
        return v[0];
    }

    private static byte[] get(java.sql.Connection c, long ino, String name) throws java.sql.SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT value FROM xattrs WHERE ino = ? AND name = ?")) {
            ps.setLong(1, ino);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBytes(1) : null;
            }
        }
    }

    List<String> names(long ino) {
        return db.read(c -> {
            Store.node(c, ino);
            List<String> out = new ArrayList<>();
            try (Sql.Stmt ps = Sql.prepare(c, "SELECT name FROM xattrs WHERE ino = ? ORDER BY name")) {
                ps.setLong(1, ino);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.add(rs.getString(1));
                }
            }
            return out;
        });
    }

    void remove(long ino, String name, long now) {
        checkNamespace(name);
        db.write(c -> {
            Store.node(c, ino);
            try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM xattrs WHERE ino = ? AND name = ?")) {
                ps.setLong(1, ino);
                ps.setString(2, name);
                if (ps.executeUpdate() == 0) throw new FuseException(Errno.ENODATA);
            }
            Store.linksChanged(c, ino, now, 0);
            return null;
        });
    }

    /** Stores {@code name = value} of {@code ino}, replacing an older value (ACLs are rows here too). */
    static void put(Connection c, long ino, String name, byte[] value) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO xattrs (ino, name, value) VALUES (?, ?, ?)"
                + " ON CONFLICT (ino, name) DO UPDATE SET value = excluded.value")) {
            ps.setLong(1, ino);
            ps.setString(2, name);
            ps.setBytes(3, value);
            ps.executeUpdate();
        }
    }
}
