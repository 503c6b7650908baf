package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One row of {@code inodes}. {@code mode} holds the permission bits only; the type is a word. {@code stored} is
 * the number of bytes the file's chunks hold (st_blocks), read only for replies that carry attributes
 * ({@link #STAT_COLUMNS}); -1 where it was not read.
 */
record Node(long ino, String type, int mode, int uid, int gid, long atimeNs, long mtimeNs, long ctimeNs, long size,
            long nlink, long rdev, long stored) {

    /** The columns {@link #of} reads, in order. */
    static final String COLUMNS = "ino, type, mode, uid, gid, atime_ns, mtime_ns, ctime_ns, size, nlink, rdev";
    static final String COLUMNS_I = "i.ino, i.type, i.mode, i.uid, i.gid, i.atime_ns, i.mtime_ns, i.ctime_ns, i.size, i.nlink, i.rdev";

    /**
     * The bytes stored in a file's chunks, for st_blocks: holes (missing chunks) and the zeros after a short chunk
     * take no space, so {@code du} shows a sparse file as sparse. Summed at read time from the chunks' primary
     * key range (lengths only: neither database reads the blobs for {@code length}), so it is right whatever
     * wrote the chunks (the mount, or an application through SQL) and writes pay nothing for it; the price is
     * one index range per attribute reply of a regular file, proportional to its number of chunks (DESIGN.md,
     * "Holes"). {@code %1$s} is the inode row's alias.
     */
    private static final String STORED = ", CASE WHEN %1$s.type = 'file' THEN (SELECT coalesce(sum(length(sc.data)), 0)"
            + " FROM chunks sc WHERE sc.ino = %1$s.ino) ELSE 0 END";

    /** {@link #COLUMNS} and the stored bytes, from {@code inodes} (named as such). */
    static final String STAT_COLUMNS = COLUMNS + STORED.formatted("inodes");
    /** {@link #COLUMNS_I} and the stored bytes, from {@code inodes i}. */
    static final String STAT_COLUMNS_I = COLUMNS_I + STORED.formatted("i");

    /** A node from {@link #COLUMNS} (stored bytes unknown: -1). */
    static Node of(ResultSet rs, int first) throws SQLException {
        return of(rs, first, -1);
    }

    /** A node from {@link #STAT_COLUMNS}. */
    static Node ofStat(ResultSet rs, int first) throws SQLException {
        return of(rs, first, rs.getLong(first + 11));
    }

    private static Node of(ResultSet rs, int first, long stored) throws SQLException {
        return new Node(rs.getLong(first), rs.getString(first + 1), rs.getInt(first + 2), (int) rs.getLong(first + 3),
                (int) rs.getLong(first + 4), rs.getLong(first + 5), rs.getLong(first + 6), rs.getLong(first + 7),
                rs.getLong(first + 8), rs.getLong(first + 9), rs.getLong(first + 10), stored);
    }

    static int typeBits(String type) {
        return switch (type) {
            case "file" -> Attr.S_IFREG;
            case "dir" -> Attr.S_IFDIR;
            case "symlink" -> Attr.S_IFLNK;
            case "fifo" -> Attr.S_IFIFO;
            case "socket" -> Attr.S_IFSOCK;
            case "char" -> Attr.S_IFCHR;
            case "block" -> Attr.S_IFBLK;
            default -> throw new FuseException(Errno.EIO, "unknown inode type " + type);
        };
    }

    static String typeName(int mode) {
        return switch (mode & Attr.S_IFMT) {
            case Attr.S_IFREG, 0 -> "file";
            case Attr.S_IFDIR -> "dir";
            case Attr.S_IFLNK -> "symlink";
            case Attr.S_IFIFO -> "fifo";
            case Attr.S_IFSOCK -> "socket";
            case Attr.S_IFCHR -> "char";
            case Attr.S_IFBLK -> "block";
            default -> throw new FuseException(Errno.EINVAL);
        };
    }

    int fullMode() { return typeBits(type) | (mode & 07777); }

    boolean isDir() { return type.equals("dir"); }

    boolean isFile() { return type.equals("file"); }

    /**
     * st_blocks: the bytes stored in the file's chunks in 512-byte units, rounded up. A node read without them
     * ({@link #of}) must not be replied with: that would be a lie about its space, so it fails loudly.
     */
    Attr attr() {
        if (stored < 0 && isFile()) throw new IllegalStateException("attributes of " + ino + " read without st_blocks");
        long blocks = isFile() ? (stored + 511) / 512 : 0;
        return new Attr(ino, fullMode(), (int) Math.min(nlink, Integer.MAX_VALUE), uid, gid, (int) rdev, size, blocks,
                4096, Math.floorDiv(atimeNs, 1_000_000_000L), (int) Math.floorMod(atimeNs, 1_000_000_000L),
                Math.floorDiv(mtimeNs, 1_000_000_000L), (int) Math.floorMod(mtimeNs, 1_000_000_000L),
                Math.floorDiv(ctimeNs, 1_000_000_000L), (int) Math.floorMod(ctimeNs, 1_000_000_000L),
                Math.floorDiv(ctimeNs, 1_000_000_000L), (int) Math.floorMod(ctimeNs, 1_000_000_000L));
    }
}
