package dev.ringfuse.sqlfs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A file's bytes as rows of {@code chunks(ino, idx, data)}: chunk {@code idx} holds bytes
 * {@code idx * chunkSize ..} of the file. A missing chunk is a hole; a chunk may be shorter than the chunk
 * size, the rest reads as zeros (and is a hole too: only stored bytes are data and take space). No chunk holds
 * anything but zeros at or past the file's size (truncate trims; only fallocate KEEP_SIZE stores zeros there),
 * so growing a file never shows old bytes.
 */
final class Chunks {
    private Chunks() {}

    /**
     * Reads up to {@code len} bytes at {@code off} of file {@code ino} into {@code buf} with one statement
     * (the size and the chunks together), so that it needs no explicit transaction; -1 if there is no
     * such regular file.
     */
    static int readFile(Connection c, long ino, int chunk, long off, int len, MemorySegment buf) throws SQLException {
        // capped at the last offset there is: the kernel keeps off + len in range, a request that did not would
        // otherwise wrap to a negative last chunk and read back zeros where bytes are stored
        long first = off / chunk, last = (off + Math.min(Math.max(len, 1) - 1, Long.MAX_VALUE - off)) / chunk;
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT i.size, i.type, c.idx, substr(c.data, CAST(1 + CASE"
                + " WHEN ? > c.idx * ? THEN ? - c.idx * ? ELSE 0 END AS INTEGER), ?) FROM inodes i LEFT JOIN chunks c"
                + " ON c.ino = i.ino AND c.idx BETWEEN ? AND ? WHERE i.ino = ? ORDER BY c.idx")) {
            ps.setLong(1, off);
            ps.setLong(2, chunk);
            ps.setLong(3, off);
            ps.setLong(4, chunk);
            ps.setInt(5, len);
            ps.setLong(6, first);
            ps.setLong(7, last);
            ps.setLong(8, ino);
            try (ResultSet rs = ps.executeQuery()) {
                int n = -1;
                long filled = 0; // bytes of buf written so far; the gaps (holes, short chunks) are zeroed
                while (rs.next()) {
                    if (n < 0) {
                        if ("dir".equals(rs.getString(2))) throw new dev.ringfuse.FuseException(dev.ringfuse.Errno.EISDIR);
                        long size = rs.getLong(1);
                        n = off >= size || len <= 0 ? 0 : (int) Math.min(len, size - off);
                    }
                    byte[] data = rs.getBytes(4);
                    if (data == null || n <= 0) continue;
                    long at = Math.max(off, rs.getLong(3) * chunk) - off;
                    int take = (int) Math.min(data.length, n - at);
                    if (take <= 0) continue;
                    if (at > filled) buf.asSlice(filled, at - filled).fill((byte) 0);
                    MemorySegment.copy(data, 0, buf, ValueLayout.JAVA_BYTE, at, take);
                    filled = at + take;
                }
                if (n > filled) buf.asSlice(filled, n - filled).fill((byte) 0);
                return n;
            }
        }
    }

    /**
     * Writes {@code data} at {@code off}: whole chunks are replaced, partial ones read, patched and replaced
     * (also past the size the caller knows: a concurrent extending write may have filled them meanwhile).
     */
    static void write(Connection c, long ino, int chunk, long off, MemorySegment data) throws SQLException {
        long len = data.byteSize();
        if (len == 0) return;
        try (Sql.Stmt get = Sql.prepare(c, "SELECT data FROM chunks WHERE ino = ? AND idx = ?");
             Sql.Stmt put = Sql.prepare(c, "INSERT INTO chunks (ino, idx, data) VALUES (?, ?, ?)"
                     + " ON CONFLICT (ino, idx) DO UPDATE SET data = excluded.data")) {
            for (long idx = off / chunk; idx <= (off + len - 1) / chunk; idx++) {
                long start = idx * chunk;
                int from = (int) (Math.max(off, start) - start);
                // not min(off + len, start + chunk): the end of the last chunk a file can have is 2^63, past a long
                int to = (int) Math.min(off + len - start, chunk);
                byte[] bytes;
                // Only a whole chunk has nothing to keep. Not "past the end" too: the size a caller read can be
                // older than a concurrent extending write's chunk, which would be overwritten with zeros
                // (wrong bytes found by the coherence stress, sqlfs/DESIGN.md)
                if (from == 0 && to == chunk) {
                    bytes = new byte[chunk];
                } else {
                    byte[] old = null;
                    get.setLong(1, ino);
                    get.setLong(2, idx);
                    try (ResultSet rs = get.executeQuery()) {
                        if (rs.next()) old = rs.getBytes(1);
                    }
                    bytes = new byte[Math.max(to, old == null ? 0 : old.length)];
                    if (old != null) System.arraycopy(old, 0, bytes, 0, old.length);
                }
                MemorySegment.copy(data, ValueLayout.JAVA_BYTE, start + from - off, bytes, from, to - from);
                put.setLong(1, ino);
                put.setLong(2, idx);
                put.setBytes(3, bytes);
                put.executeUpdate();
            }
        }
    }

    /** Drops the bytes at and past {@code newSize} (growing needs nothing: the new range is a hole). */
    static void truncate(Connection c, Dialect d, long ino, int chunk, long newSize) throws SQLException {
        // chunks 0 .. keep-1 may hold bytes below newSize; rounding up by adding chunk - 1 would wrap within a
        // chunk of 2^63 and delete every chunk
        long keep = Math.ceilDiv(newSize, chunk);
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM chunks WHERE ino = ? AND idx >= ?")) {
            ps.setLong(1, ino);
            ps.setLong(2, keep);
            ps.executeUpdate();
        }
        int tail = (int) (newSize % chunk);
        if (tail != 0) {
            try (Sql.Stmt ps = Sql.prepare(c, "UPDATE chunks SET data = substr(data, 1, ?)"
                    + " WHERE ino = ? AND idx = ? AND length(data) > ?")) {
                ps.setInt(1, tail);
                ps.setLong(2, ino);
                ps.setLong(3, newSize / chunk);
                ps.setInt(4, tail);
                ps.executeUpdate();
            }
        }
    }

    /**
     * Punches {@code off .. off+len}: whole chunks go (holes), partial ones are zeroed in place, or cut short when
     * the range reaches the end of their data (the zeros after a short chunk are a hole too), so the space the
     * range held is given back as far as chunks allow.
     */
    static void zero(Connection c, long ino, int chunk, long off, long len) throws SQLException {
        try (Sql.Stmt get = Sql.prepare(c, "SELECT data FROM chunks WHERE ino = ? AND idx = ?");
             Sql.Stmt put = Sql.prepare(c, "UPDATE chunks SET data = ? WHERE ino = ? AND idx = ?");
             Sql.Stmt drop = Sql.prepare(c, "DELETE FROM chunks WHERE ino = ? AND idx BETWEEN ? AND ?")) {
            long first = off / chunk, last = (off + len - 1) / chunk;
            // ceilDiv: off + chunk - 1 wraps within a chunk of 2^63, and the range of whole chunks would start below 0
            long wholeFrom = Math.ceilDiv(off, chunk), wholeTo = (off + len) / chunk - 1;
            if (wholeFrom <= wholeTo) {
                drop.setLong(1, ino);
                drop.setLong(2, wholeFrom);
                drop.setLong(3, wholeTo);
                drop.executeUpdate();
            }
            for (long idx : new long[] {first, last}) {
                if (idx >= wholeFrom && idx <= wholeTo) continue;
                get.setLong(1, ino);
                get.setLong(2, idx);
                byte[] data;
                try (ResultSet rs = get.executeQuery()) {
                    if (!rs.next()) continue;
                    data = rs.getBytes(1);
                }
                long start = idx * chunk;
                int from = (int) Math.max(0, off - start), to = (int) Math.min(data.length, off + len - start);
                if (to <= from) continue;
                if (from == 0 && to == data.length) { // a short chunk's every stored byte: the row goes
                    drop.setLong(1, ino);
                    drop.setLong(2, idx);
                    drop.setLong(3, idx);
                    drop.executeUpdate();
                    if (first == last) break;
                    continue;
                }
                if (to == data.length) {
                    data = java.util.Arrays.copyOf(data, from);
                } else {
                    java.util.Arrays.fill(data, from, to, (byte) 0);
                }
                put.setBytes(1, data);
                put.setLong(2, ino);
                put.setLong(3, idx);
                put.executeUpdate();
                if (first == last) break;
            }
        }
    }

    /**
     * fallocate's allocation of {@code off .. off+len}: every chunk of the range holds stored zeros up to the
     * range's end (missing chunks are inserted, shorter ones lengthened; stored bytes stay). The space is then
     * taken in the database, counted in st_blocks, and a later write of the same chunk replaces a row of the same
     * length (SQLite overwrites such a row in place). The zeros are data for SEEK_DATA: they are stored bytes.
     * One indexed range query finds what exists; a statement per chunk that needs one.
     */
    static void allocate(Connection c, long ino, int chunk, long off, long len) throws SQLException {
        long first = off / chunk, last = (off + len - 1) / chunk, end = off + len;
        java.util.Map<Long, Integer> lengths = new java.util.HashMap<>();
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT idx, length(data) FROM chunks WHERE ino = ? AND idx BETWEEN ? AND ?")) {
            ps.setLong(1, ino);
            ps.setLong(2, first);
            ps.setLong(3, last);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) lengths.put(rs.getLong(1), rs.getInt(2));
            }
        }
        try (Sql.Stmt get = Sql.prepare(c, "SELECT data FROM chunks WHERE ino = ? AND idx = ?");
             Sql.Stmt put = Sql.prepare(c, "INSERT INTO chunks (ino, idx, data) VALUES (?, ?, ?)"
                     + " ON CONFLICT (ino, idx) DO UPDATE SET data = excluded.data")) {
            byte[] zeros = null;
            for (long idx = first; idx <= last; idx++) {
                int want = (int) Math.min(chunk, end - idx * chunk);
                Integer have = lengths.get(idx);
                if (have != null && have >= want) continue;
                byte[] bytes;
                if (have == null) {
                    if (want == chunk) {
                        if (zeros == null) zeros = new byte[chunk];
                        bytes = zeros;
                    } else {
                        bytes = new byte[want];
                    }
                } else {
                    get.setLong(1, ino);
                    get.setLong(2, idx);
                    try (ResultSet rs = get.executeQuery()) {
                        bytes = java.util.Arrays.copyOf(rs.next() ? rs.getBytes(1) : new byte[0], want);
                    }
                }
                put.setLong(1, ino);
                put.setLong(2, idx);
                put.setBytes(3, bytes);
                put.executeUpdate();
            }
        }
    }

    /**
     * SEEK_DATA: the first offset at or after {@code off} that a chunk stores, or -1. One query on the primary
     * key: the first chunk from {@code off}'s whose stored bytes reach past {@code off}. The caller checks the
     * size (zeros fallocate keeps past it are not the file's data).
     */
    static long seekData(Connection c, long ino, int chunk, long off) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT idx FROM chunks WHERE ino = ? AND idx >= ?"
                + " AND idx * ? + length(data) > ? ORDER BY idx LIMIT 1")) {
            ps.setLong(1, ino);
            ps.setLong(2, off / chunk);
            ps.setLong(3, chunk);
            ps.setLong(4, off);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Math.max(off, rs.getLong(1) * chunk) : -1;
            }
        }
    }

    /**
     * SEEK_HOLE: the first offset at or after {@code off} that no chunk stores (past the last stored byte when
     * the data runs on to the end; the caller caps it at the size). One query on the primary key: the first
     * chunk from {@code off}'s that is short or whose successor is missing ends a run of data (every chunk
     * before it is whole and followed by the next, so the run is unbroken); {@code off} is in that run if its
     * own chunk exists and stores it. The query walks the run of data it crosses, which a caller asking for the
     * hole after some data (cp, tar) then reads.
     */
    static long seekHole(Connection c, long ino, int chunk, long off) throws SQLException {
        long at = off / chunk;
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT idx, length(data), EXISTS (SELECT 1 FROM chunks a WHERE a.ino = ?"
                + " AND a.idx = ?) FROM chunks c WHERE ino = ? AND idx >= ? AND (length(data) < ?"
                + " OR NOT EXISTS (SELECT 1 FROM chunks n WHERE n.ino = c.ino AND n.idx = c.idx + 1)) ORDER BY idx LIMIT 1")) {
            ps.setLong(1, ino);
            ps.setLong(2, at);
            ps.setLong(3, ino);
            ps.setLong(4, at);
            ps.setInt(5, chunk);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return off; // nothing stored from here on
                long idx = rs.getLong(1), end = idx * chunk + rs.getLong(2);
                if (idx == at) return Math.max(off, end); // off's chunk ends the run: off is stored if before its end
                return rs.getBoolean(3) ? end : off; // off's chunk, if it exists, is whole and leads into the run
            }
        }
    }
}
