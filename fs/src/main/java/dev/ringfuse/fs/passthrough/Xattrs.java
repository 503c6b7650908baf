package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.passthrough.Inodes.Inode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Extended attributes through "/proc/self/fd/N" of the inode's O_PATH descriptor (the f*xattr calls refuse
 * O_PATH descriptors). That path is a magic link to exactly this inode; following it cannot leave the
 * source. A symlink's attributes cannot be reached that way (following the magic link would follow the symlink
 * too, the l*xattr calls would name the magic link itself, and the *xattrat calls refuse O_PATH descriptors, Linux
 * 6.18): a symlink shows none (ENODATA, an empty list) and refuses changes with EPERM, which Linux answers for user
 * attributes on symlinks anyway. ENODATA rather than libfuse passthrough's EPERM: `ls -l` asks every symlink for
 * its security label and prints an error for anything but ENODATA or ENOTSUP.
 */
final class Xattrs {
    /** XATTR_SIZE_MAX: the largest value and the largest name list. */
    private static final int MAX = 65536;

    private Xattrs() {}

    private static MemorySegment path(Arena a, Inode n) {
        if (n.type == SourceTree.S_IFLNK) throw new FuseException(Errno.EPERM);
        return a.allocateFrom(n.procPath());
    }

    static void set(Inode n, String name, MemorySegment value, int flags) {
        try (Arena a = Arena.ofConfined()) {
            // copy: the request's payload is not guaranteed to outlive a native call's argument checks
            MemorySegment v = a.allocate(Math.max(1, value.byteSize())).asSlice(0, value.byteSize());
            v.copyFrom(value);
            SourceTree.check(PosixCalls.setxattr(path(a, n), SourceTree.bytes(a, name), v, flags));
        }
    }

    static byte[] get(Inode n, String name) {
        if (n.type == SourceTree.S_IFLNK) throw new FuseException(Errno.ENODATA);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(MAX);
            long len = SourceTree.check(PosixCalls.getxattr(path(a, n), SourceTree.bytes(a, name), buf));
            return buf.asSlice(0, len).toArray(JAVA_BYTE);
        }
    }

    static List<String> list(Inode n) {
        if (n.type == SourceTree.S_IFLNK) return List.of();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(MAX);
            long len = SourceTree.check(PosixCalls.listxattr(path(a, n), buf));
            List<String> names = new ArrayList<>();
            for (long pos = 0; pos < len; ) {
                String s = FileIo.cString(buf, pos, len - pos);
                names.add(s);
                pos += dev.ringfuse.FileNames.encodedLength(s) + 1;
            }
            return names;
        }
    }

    static void remove(Inode n, String name) {
        try (Arena a = Arena.ofConfined()) {
            SourceTree.check(PosixCalls.removexattr(path(a, n), SourceTree.bytes(a, name)));
        }
    }
}
