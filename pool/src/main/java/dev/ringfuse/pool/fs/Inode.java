package dev.ringfuse.pool.fs;

import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.pool.format.FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** An inode as stored under (ino, INODE, 0) (DESIGN.md, "Dataset object tree"). Mutable; owner holds the pool lock. */
final class Inode {
    static final int SIZE = 112;
    final long ino;
    int mode, uid, gid, nlink;
    long size, rdev;
    long atimeS, mtimeS, ctimeS, btimeS;
    int atimeN, mtimeN, ctimeN, btimeN;
    long generation;
    int blocksize;
    int flags;
    long parent;
    /** Bytes allocated for this file's data blocks on disk (st_blocks). */
    long allocated;

    Inode(long ino) {
        this.ino = ino;
    }

    int type() { return mode & Attr.S_IFMT; }
    boolean isDir() { return type() == Attr.S_IFDIR; }
    boolean isFile() { return type() == Attr.S_IFREG; }

    /**
     * The privilege kill of a change by a caller without CAP_FSETID (HANDLE_KILLPRIV_V2: the kernel only says
     * that the caller lacks it): set-user-ID goes; set-group-ID goes when group-executable or when the caller
     * is outside the file's group, as tmpfs's file_remove_privs decides. True if the mode changed.
     */
    boolean killPrivileges(java.util.function.BooleanSupplier callerInGroup) {
        int before = mode;
        mode = dev.ringfuse.access.Permissions.killedMode(mode, callerInGroup);
        return mode != before;
    }

    void touchTimes(boolean m, boolean c) {
        java.time.Instant i = java.time.Instant.now();
        if (m) { mtimeS = i.getEpochSecond(); mtimeN = i.getNano(); }
        if (c) { ctimeS = i.getEpochSecond(); ctimeN = i.getNano(); }
    }

    void initTimes() {
        java.time.Instant i = java.time.Instant.now();
        atimeS = mtimeS = ctimeS = btimeS = i.getEpochSecond();
        atimeN = mtimeN = ctimeN = btimeN = i.getNano();
    }

    Attr attr(long dirtyBytes) {
        long blocks = (allocated + dirtyBytes + 511) / 512;
        return new Attr(ino, mode, nlink, uid, gid, (int) rdev, size, blocks, 4096, atimeS, atimeN, mtimeS, mtimeN,
                ctimeS, ctimeN, btimeS, btimeN);
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(mode).putInt(uid).putInt(gid).putInt(nlink).putLong(size).putLong(rdev);
        b.putLong(atimeS).putInt(atimeN).putLong(mtimeS).putInt(mtimeN).putLong(ctimeS).putInt(ctimeN).putLong(btimeS).putInt(btimeN);
        b.putLong(generation).putInt(blocksize).putInt(flags).putLong(parent).putLong(allocated);
        return b.array();
    }

    static Inode decode(long ino, byte[] v) throws FormatException {
        if (v.length < SIZE) throw new FormatException("inode " + ino + ": truncated");
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        Inode n = new Inode(ino);
        n.mode = b.getInt(); n.uid = b.getInt(); n.gid = b.getInt(); n.nlink = b.getInt();
        n.size = b.getLong(); n.rdev = b.getLong();
        n.atimeS = b.getLong(); n.atimeN = b.getInt(); n.mtimeS = b.getLong(); n.mtimeN = b.getInt();
        n.ctimeS = b.getLong(); n.ctimeN = b.getInt(); n.btimeS = b.getLong(); n.btimeN = b.getInt();
        n.generation = b.getLong(); n.blocksize = b.getInt(); n.flags = b.getInt(); n.parent = b.getLong();
        n.allocated = b.getLong();
        return n;
    }
}
