package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import java.sql.ResultSet;
import java.sql.SQLException;

/** One row of {@code inodes}. {@code mode} holds the permission bits only; the type is a word. */
record Node(long ino, String type, int mode, int uid, int gid, long atimeNs, long mtimeNs, long ctimeNs, long size,
            long nlink, long rdev) {

    /** The columns {@link #of} reads, in order. */
    static final String COLUMNS = "ino, type, mode, uid, gid, atime_ns, mtime_ns, ctime_ns, size, nlink, rdev";
    static final String COLUMNS_I = "i.ino, i.type, i.mode, i.uid, i.gid, i.atime_ns, i.mtime_ns, i.ctime_ns, i.size, i.nlink, i.rdev";

    static Node of(ResultSet rs, int first) throws SQLException {
        return new Node(rs.getLong(first), rs.getString(first + 1), rs.getInt(first + 2), (int) rs.getLong(first + 3),
                (int) rs.getLong(first + 4), rs.getLong(first + 5), rs.getLong(first + 6), rs.getLong(first + 7),
                rs.getLong(first + 8), rs.getLong(first + 9), rs.getLong(first + 10));
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

    /** st_blocks counts the file's size in 512-byte units, rounded up to 4 KiB (holes are not measured). */
    Attr attr() {
        long blocks = isFile() ? ((size + 4095) / 4096) * 8 : 0;
        return new Attr(ino, fullMode(), (int) Math.min(nlink, Integer.MAX_VALUE), uid, gid, (int) rdev, size, blocks,
                4096, Math.floorDiv(atimeNs, 1_000_000_000L), (int) Math.floorMod(atimeNs, 1_000_000_000L),
                Math.floorDiv(mtimeNs, 1_000_000_000L), (int) Math.floorMod(mtimeNs, 1_000_000_000L),
                Math.floorDiv(ctimeNs, 1_000_000_000L), (int) Math.floorMod(ctimeNs, 1_000_000_000L),
                Math.floorDiv(ctimeNs, 1_000_000_000L), (int) Math.floorMod(ctimeNs, 1_000_000_000L));
    }
}
