package dev.ringfuse.fs.passthrough;

import dev.ringfuse.lowlevel.Attr;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** Reads struct statx (include/uapi/linux/stat.h; the same layout on every architecture). */
final class Statx {
    static final long SIZE = 256;
    private static final long MASK = 0, BLKSIZE = 4, NLINK = 16, UID = 20, GID = 24, MODE = 28, INO = 32, SIZE_OFF = 40,
            BLOCKS = 48, ATIME = 64, BTIME = 80, CTIME = 96, MTIME = 112, RDEV_MAJOR = 128, RDEV_MINOR = 132,
            DEV_MAJOR = 136, DEV_MINOR = 140;

    private Statx() {}

    static int mask(MemorySegment s) { return s.get(JAVA_INT, MASK); }

    static int mode(MemorySegment s) { return Short.toUnsignedInt(s.get(JAVA_SHORT, MODE)); }

    static long ino(MemorySegment s) { return s.get(JAVA_LONG, INO); }

    static int devMajor(MemorySegment s) { return s.get(JAVA_INT, DEV_MAJOR); }

    static int devMinor(MemorySegment s) { return s.get(JAVA_INT, DEV_MINOR); }

    /** st_dev as one number (major and minor are what identify the device; the packing only has to be unique). */
    static long dev(MemorySegment s) {
        return ((long) s.get(JAVA_INT, DEV_MAJOR) << 32) | Integer.toUnsignedLong(s.get(JAVA_INT, DEV_MINOR));
    }

    static Inodes.Key key(MemorySegment s) {
        return new Inodes.Key(dev(s), ino(s));
    }

    /** The kernel's attributes; st_ino stays the source's, so hard links and stat agree with the source. */
    static Attr attr(MemorySegment s) {
        int major = s.get(JAVA_INT, RDEV_MAJOR), minor = s.get(JAVA_INT, RDEV_MINOR);
        // FUSE carries rdev in the kernel's new_encode_dev format
        int rdev = (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12);
        boolean btime = (mask(s) & PosixCalls.STATX_BTIME) != 0;
        return new Attr(ino(s), mode(s), s.get(JAVA_INT, NLINK), s.get(JAVA_INT, UID), s.get(JAVA_INT, GID), rdev,
                s.get(JAVA_LONG, SIZE_OFF), s.get(JAVA_LONG, BLOCKS), s.get(JAVA_INT, BLKSIZE),
                sec(s, ATIME), nsec(s, ATIME), sec(s, MTIME), nsec(s, MTIME), sec(s, CTIME), nsec(s, CTIME),
                btime ? sec(s, BTIME) : 0, btime ? nsec(s, BTIME) : 0);
    }

    private static long sec(MemorySegment s, long off) { return s.get(JAVA_LONG, off); }

    private static int nsec(MemorySegment s, long off) { return s.get(JAVA_INT, off + 8); }
}
