package dev.ringfuse.protocol;

import dev.ringfuse.kernel.Off;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.StatFs;
import java.lang.foreign.MemorySegment;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;
import static dev.ringfuse.protocol.Wire.u16;

/**
 * Writes reply bodies (everything after fuse_out_header) into a segment and returns their length. The
 * segment is the transport's reply buffer; every byte of the body is written (padding included), so a
 * reused buffer leaks nothing.
 */
public final class Encoder {
    private Encoder() {}

    /** fuse_attr at {@code at}. */
    public static void attr(MemorySegment s, long at, Attr a) {
        i64(s, at + Off.ATTR_INO, a.ino());
        i64(s, at + Off.ATTR_SIZE, a.size());
        i64(s, at + Off.ATTR_BLOCKS, a.blocks());
        i64(s, at + Off.ATTR_ATIME, a.atimeSec());
        i64(s, at + Off.ATTR_MTIME, a.mtimeSec());
        i64(s, at + Off.ATTR_CTIME, a.ctimeSec());
        i32(s, at + Off.ATTR_ATIMENSEC, a.atimeNsec());
        i32(s, at + Off.ATTR_MTIMENSEC, a.mtimeNsec());
        i32(s, at + Off.ATTR_CTIMENSEC, a.ctimeNsec());
        i32(s, at + Off.ATTR_MODE, a.mode());
        i32(s, at + Off.ATTR_NLINK, a.nlink());
        i32(s, at + Off.ATTR_UID, a.uid());
        i32(s, at + Off.ATTR_GID, a.gid());
        i32(s, at + Off.ATTR_RDEV, a.rdev());
        i32(s, at + Off.ATTR_BLKSIZE, a.blksize());
        i32(s, at + Off.ATTR_FLAGS, 0);
    }

    /** fuse_entry_out at {@code at}; a null attr (negative entry) is written as zeros. */
    public static int entry(MemorySegment s, long at, Entry e) {
        i64(s, at + Off.ENTRY_OUT_NODEID, e.nodeid());
        i64(s, at + Off.ENTRY_OUT_GENERATION, e.generation());
        timeout(s, at + Off.ENTRY_OUT_ENTRY_VALID, at + Off.ENTRY_OUT_ENTRY_VALID_NSEC, e.entryTimeoutNanos());
        timeout(s, at + Off.ENTRY_OUT_ATTR_VALID, at + Off.ENTRY_OUT_ATTR_VALID_NSEC, e.attrTimeoutNanos());
        if (e.attr() == null) {
            s.asSlice(at + Off.ENTRY_OUT_ATTR, Off.SIZEOF_ATTR).fill((byte) 0);
        } else {
            attr(s, at + Off.ENTRY_OUT_ATTR, e.attr());
        }
        return Off.SIZEOF_ENTRY_OUT;
    }

    /** fuse_attr_out. */
    public static int attrOut(MemorySegment s, Attr a, long timeoutNanos) {
        timeout(s, Off.ATTR_OUT_ATTR_VALID, Off.ATTR_OUT_ATTR_VALID_NSEC, timeoutNanos);
        i32(s, Off.ATTR_OUT_DUMMY, 0);
        attr(s, Off.ATTR_OUT_ATTR, a);
        return Off.SIZEOF_ATTR_OUT;
    }

    /** fuse_open_out at {@code at}. */
    public static int openOut(MemorySegment s, long at, long fh, int openFlags, int backingId) {
        i64(s, at + Off.OPEN_OUT_FH, fh);
        i32(s, at + Off.OPEN_OUT_OPEN_FLAGS, openFlags);
        i32(s, at + Off.OPEN_OUT_BACKING_ID, backingId);
        return Off.SIZEOF_OPEN_OUT;
    }

    /** fuse_write_out (also COPY_FILE_RANGE). */
    public static int writeOut(MemorySegment s, int size) {
        i32(s, Off.WRITE_OUT_SIZE, size);
        i32(s, Off.WRITE_OUT_PADDING, 0);
        return Off.SIZEOF_WRITE_OUT;
    }

    /** A bare u64 reply (lseek_out, bmap_out, copy_file_range_out). */
    public static int u64(MemorySegment s, long v) {
        i64(s, 0, v);
        return 8;
    }

    /** fuse_getxattr_out: the size only. */
    public static int xattrSize(MemorySegment s, int size) {
        i32(s, Off.GETXATTR_OUT_SIZE, size);
        i32(s, Off.GETXATTR_OUT_PADDING, 0);
        return Off.SIZEOF_GETXATTR_OUT;
    }

    /** fuse_poll_out. */
    public static int pollOut(MemorySegment s, int revents) {
        i32(s, Off.POLL_OUT_REVENTS, revents);
        i32(s, Off.POLL_OUT_PADDING, 0);
        return Off.SIZEOF_POLL_OUT;
    }

    /** fuse_kstatfs inside fuse_statfs_out. */
    public static int statfs(MemorySegment s, StatFs st) {
        s.asSlice(0, Off.SIZEOF_KSTATFS).fill((byte) 0);
        i64(s, Off.KSTATFS_BLOCKS, st.blocks());
        i64(s, Off.KSTATFS_BFREE, st.bfree());
        i64(s, Off.KSTATFS_BAVAIL, st.bavail());
        i64(s, Off.KSTATFS_FILES, st.files());
        i64(s, Off.KSTATFS_FFREE, st.ffree());
        i32(s, Off.KSTATFS_BSIZE, st.bsize());
        i32(s, Off.KSTATFS_NAMELEN, st.namelen());
        i32(s, Off.KSTATFS_FRSIZE, st.frsize());
        return Off.SIZEOF_KSTATFS;
    }

    /** fuse_lk_out. */
    public static int lkOut(MemorySegment s, FileLock l) {
        i64(s, Off.FILE_LOCK_START, l.start());
        // "to the end" is OFFSET_MAX (= TO_EOF) on the wire too: the kernel answers EIO to an end past OFFSET_MAX
        i64(s, Off.FILE_LOCK_END, l.end());
        i32(s, Off.FILE_LOCK_TYPE, l.type());
        i32(s, Off.FILE_LOCK_PID, l.pid());
        return Off.SIZEOF_LK_OUT;
    }

    /** fuse_ioctl_out followed by the output bytes. */
    public static int ioctlOut(MemorySegment s, int result, byte[] out) {
        i32(s, Off.IOCTL_OUT_RESULT, result);
        i32(s, Off.IOCTL_OUT_FLAGS, 0);
        i32(s, Off.IOCTL_OUT_IN_IOVS, 0);
        i32(s, Off.IOCTL_OUT_OUT_IOVS, 0);
        MemorySegment.copy(MemorySegment.ofArray(out), 0, s, Off.SIZEOF_IOCTL_OUT, out.length);
        return Off.SIZEOF_IOCTL_OUT + out.length;
    }

    /** fuse_statx_out. */
    public static int statxOut(MemorySegment s, Attr a, int mask, long timeoutNanos) {
        s.asSlice(0, Off.SIZEOF_STATX_OUT).fill((byte) 0);
        timeout(s, Off.STATX_OUT_ATTR_VALID, Off.STATX_OUT_ATTR_VALID_NSEC, timeoutNanos);
        long x = Off.STATX_OUT_STAT;
        i32(s, x + Off.STATX_MASK, mask);
        i32(s, x + Off.STATX_BLKSIZE, a.blksize());
        i32(s, x + Off.STATX_NLINK, a.nlink());
        i32(s, x + Off.STATX_UID, a.uid());
        i32(s, x + Off.STATX_GID, a.gid());
        u16(s, x + Off.STATX_MODE, a.mode());
        i64(s, x + Off.STATX_INO, a.ino());
        i64(s, x + Off.STATX_SIZE, a.size());
        i64(s, x + Off.STATX_BLOCKS, a.blocks());
        sxTime(s, x + Off.STATX_ATIME, a.atimeSec(), a.atimeNsec());
        sxTime(s, x + Off.STATX_BTIME, a.btimeSec(), a.btimeNsec());
        sxTime(s, x + Off.STATX_CTIME, a.ctimeSec(), a.ctimeNsec());
        sxTime(s, x + Off.STATX_MTIME, a.mtimeSec(), a.mtimeNsec());
        i32(s, x + Off.STATX_RDEV_MAJOR, (a.rdev() >>> 8) & 0xfff);
        i32(s, x + Off.STATX_RDEV_MINOR, (a.rdev() & 0xff) | ((a.rdev() >>> 12) & 0xfff00));
        return Off.SIZEOF_STATX_OUT;
    }

    private static void sxTime(MemorySegment s, long at, long sec, int nsec) {
        i64(s, at + Off.SX_TIME_TV_SEC, sec);
        i32(s, at + Off.SX_TIME_TV_NSEC, nsec);
    }

    private static void timeout(MemorySegment s, long secAt, long nsecAt, long nanos) {
        long n = Math.max(0, nanos);
        i64(s, secAt, n / 1_000_000_000L);
        i32(s, nsecAt, (int) (n % 1_000_000_000L));
    }
}
