package dev.ringfuse.sqlfs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The recipes of docs/sql-schema.md, statement for statement, as an application would run them through
 * JDBC. The contract tests use only these to reach the database.
 */
final class ContractSql {
    private ContractSql() {}

    static final String FIND = "SELECT child FROM dentries WHERE parent = ? AND name = ?";
    static final String LIST = """
            SELECT d.name, i.ino, i.type, i.mode, i.size, i.mtime_ns
            FROM dentries d JOIN inodes i ON i.ino = d.child
            WHERE d.parent = ?
            ORDER BY d.id""";
    static final String SIZE = "SELECT size FROM inodes WHERE ino = ? AND type = 'file'";
    static final String CHUNK_SIZE = "SELECT value FROM fs_meta WHERE key = 'chunk_size'";
    static final String CHUNKS = "SELECT idx, data FROM chunks WHERE ino = ? ORDER BY idx";
    static final String EXTENTS = "SELECT idx, length(data) FROM chunks WHERE ino = ? ORDER BY idx";
    static final String STORED = "SELECT coalesce(sum(length(data)), 0) FROM chunks WHERE ino = ?";
    static final String PUNCH = "DELETE FROM chunks WHERE ino = ? AND idx BETWEEN ? AND ?";
    static final String ADD_INODE = "INSERT INTO inodes (type, mode, uid, gid, size) VALUES ('file', ?, ?, ?, ?) RETURNING ino";
    static final String ADD_DENTRY = "INSERT INTO dentries (parent, name, child) VALUES (?, ?, ?)";
    static final String ADD_CHUNK = "INSERT INTO chunks (ino, idx, data) VALUES (?, ?, ?)";
    static final String DIR_CHANGED = "UPDATE inodes SET mtime_ns = ?, ctime_ns = ? WHERE ino = ?";
    static final String DROP_CHUNKS = "DELETE FROM chunks WHERE ino = ?";
    static final String FILE_CHANGED = "UPDATE inodes SET size = ?, mtime_ns = ?, ctime_ns = ? WHERE ino = ?";

    record Listed(String name, long ino, String type, int mode, long size) {}

    /** The node id of a path relative to the root, one component at a time. */
    static long resolve(Connection c, String path) throws SQLException {
        long ino = 1;
        for (String part : path.split("/")) {
            if (part.isEmpty()) continue;
            try (PreparedStatement ps = c.prepareStatement(FIND)) {
                ps.setLong(1, ino);
                ps.setBytes(2, part.getBytes(StandardCharsets.UTF_8));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw new SQLException("no such name: " + part);
                    ino = rs.getLong(1);
                }
            }
        }
        return ino;
    }

    static List<Listed> list(Connection c, long dir) throws SQLException {
        List<Listed> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(LIST)) {
            ps.setLong(1, dir);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Listed(new String(rs.getBytes(1), StandardCharsets.UTF_8), rs.getLong(2), rs.getString(3),
                            rs.getInt(4), rs.getLong(5)));
                }
            }
        }
        return out;
    }

    static int chunkSize(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(CHUNK_SIZE); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Integer.parseInt(rs.getString(1));
        }
    }

    /**
     * A file's bytes: a buffer of {@code size} zeros, each chunk copied to {@code idx * chunk_size} up to the size
     * (zeros fallocate stored past it are not the file's).
     */
    static byte[] read(Connection c, long ino) throws SQLException {
        long size;
        try (PreparedStatement ps = c.prepareStatement(SIZE)) {
            ps.setLong(1, ino);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("not a file: " + ino);
                size = rs.getLong(1);
            }
        }
        int chunk = chunkSize(c);
        byte[] out = new byte[Math.toIntExact(size)];
        try (PreparedStatement ps = c.prepareStatement(CHUNKS)) {
            ps.setLong(1, ino);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byte[] data = rs.getBytes(2);
                    long at = rs.getLong(1) * chunk;
                    if (at >= size) continue;
                    System.arraycopy(data, 0, out, Math.toIntExact(at), (int) Math.min(data.length, size - at));
                }
            }
        }
        return out;
    }

    /** The stored chunks of a file as "idx:length" (a missing index is a hole), and the bytes they hold. */
    static String extents(Connection c, long ino) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement(EXTENTS)) {
            ps.setLong(1, ino);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.append(rs.getLong(1)).append(':').append(rs.getLong(2)).append(' ');
            }
        }
        try (PreparedStatement ps = c.prepareStatement(STORED)) {
            ps.setLong(1, ino);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return out.append("= ").append(rs.getLong(1)).toString();
            }
        }
    }

    /** Makes chunks {@code from .. to} of a file holes, in the caller's transaction. */
    static void punch(Connection c, long ino, long from, long to) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(PUNCH)) {
            ps.setLong(1, ino);
            ps.setLong(2, from);
            ps.setLong(3, to);
            ps.executeUpdate();
        }
        long now = System.currentTimeMillis() * 1_000_000L;
        try (PreparedStatement ps = c.prepareStatement("UPDATE inodes SET mtime_ns = ?, ctime_ns = ? WHERE ino = ?")) {
            ps.setLong(1, now);
            ps.setLong(2, now);
            ps.setLong(3, ino);
            ps.executeUpdate();
        }
    }

    /** Adds a file {@code name} with {@code content} to directory {@code dir}, in the caller's transaction. */
    static long add(Connection c, long dir, String name, byte[] content, int mode, int uid, int gid) throws SQLException {
        long ino;
        try (PreparedStatement ps = c.prepareStatement(ADD_INODE)) {
            ps.setInt(1, mode);
            ps.setInt(2, uid);
            ps.setInt(3, gid);
            ps.setLong(4, content.length);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                ino = rs.getLong(1);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(ADD_DENTRY)) {
            ps.setLong(1, dir);
            ps.setBytes(2, name.getBytes(StandardCharsets.UTF_8));
            ps.setLong(3, ino);
            ps.executeUpdate();
        }
        putChunks(c, ino, content);
        long now = System.currentTimeMillis() * 1_000_000L;
        try (PreparedStatement ps = c.prepareStatement(DIR_CHANGED)) {
            ps.setLong(1, now);
            ps.setLong(2, now);
            ps.setLong(3, dir);
            ps.executeUpdate();
        }
        return ino;
    }

    /** Replaces a file's bytes, in the caller's transaction. */
    static void replace(Connection c, long ino, byte[] content) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DROP_CHUNKS)) {
            ps.setLong(1, ino);
            ps.executeUpdate();
        }
        putChunks(c, ino, content);
        long now = System.currentTimeMillis() * 1_000_000L;
        try (PreparedStatement ps = c.prepareStatement(FILE_CHANGED)) {
            ps.setLong(1, content.length);
            ps.setLong(2, now);
            ps.setLong(3, now);
            ps.setLong(4, ino);
            ps.executeUpdate();
        }
    }

    private static void putChunks(Connection c, long ino, byte[] content) throws SQLException {
        int chunk = chunkSize(c);
        try (PreparedStatement ps = c.prepareStatement(ADD_CHUNK)) {
            for (int idx = 0; (long) idx * chunk < content.length; idx++) {
                int from = idx * chunk;
                ps.setLong(1, ino);
                ps.setLong(2, idx);
                ps.setBytes(3, Arrays.copyOfRange(content, from, Math.min(content.length, from + chunk)));
                ps.executeUpdate();
            }
        }
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }
}
