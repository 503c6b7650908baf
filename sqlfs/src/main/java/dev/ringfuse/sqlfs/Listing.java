package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * Directory listings for readdir and readdirplus: entries in {@code dentries.id} order, the id being the
 * cookie the kernel sends back to continue.
 */
final class Listing {
    private Listing() {}

    /**
     * One entry of a listing: its cookie is the dentry's row id + 2 ("." and ".." are 1 and 2); {@code node}
     * only for readdirplus (a plain readdir needs the type alone).
     */
    record Listed(long cookie, String name, long ino, int mode, Node node) {
        Listed(long cookie, String name, Node node) {
            this(cookie, name, node.ino(), node.fullMode(), node);
        }
    }

    static final String LIST_PLUS = "SELECT d.id, d.name, " + Node.STAT_COLUMNS_I
            + " FROM dentries d JOIN inodes i ON i.ino = d.child WHERE d.parent = ? AND d.id > ? ORDER BY d.id LIMIT ?";
    private static final String LIST = "SELECT d.id, d.name, d.child, i.type"
            + " FROM dentries d JOIN inodes i ON i.ino = d.child WHERE d.parent = ? AND d.id > ? ORDER BY d.id LIMIT ?";

    /**
     * Up to {@code max} entries after cookie {@code offset}. The first request of a listing reads the
     * directory and its parent for "." and ".." in one transaction; every later one is the single indexed
     * range query (schema version 3: {@code dentries(parent, id)}), which on SQLite runs without
     * BEGIN/COMMIT. An empty answer is checked against the directory itself (ENOENT, ENOTDIR).
     */
    static List<Listed> list(Database db, long dir, long offset, int max, boolean plus) {
        if (offset < 2) {
            return db.read(c -> {
                List<Listed> out = new ArrayList<>();
                Node d = Store.node(c, dir);
                if (!d.isDir()) throw new FuseException(Errno.ENOTDIR);
                if (offset < 1) out.add(new Listed(1, ".", d));
                out.add(new Listed(2, "..", Store.node(c, Store.parentOf(c, dir))));
                entries(c, dir, 0, max, plus, out);
                return out;
            });
        }
        List<Listed> out = db.query(c -> entries(c, dir, offset - 2, max, plus, new ArrayList<>()));
        if (out.isEmpty() && !db.query(c -> Store.node(c, dir)).isDir()) throw new FuseException(Errno.ENOTDIR);
        return out;
    }

    private static List<Listed> entries(java.sql.Connection c, long dir, long after, int max, boolean plus, List<Listed> out)
            throws java.sql.SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, plus ? LIST_PLUS : LIST)) {
            ps.setLong(1, dir);
            ps.setLong(2, after);
            ps.setInt(3, max);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long cookie = rs.getLong(1) + 2;
                    String name = FileNames.decode(rs.getBytes(2));
                    out.add(plus ? new Listed(cookie, name, Node.ofStat(rs, 3))
                            : new Listed(cookie, name, rs.getLong(3), Node.typeBits(rs.getString(4)), null));
                }
            }
        }
        return out;
    }
}
