package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.passthrough.Inodes.Inode;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.sys.ErrnoException;
import dev.ringfuse.sys.Libc;
import dev.ringfuse.sys.ServedMounts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.ringfuse.fs.passthrough.PosixCalls.AT_EMPTY_PATH;
import static dev.ringfuse.fs.passthrough.PosixCalls.AT_FDCWD;
import static dev.ringfuse.fs.passthrough.PosixCalls.AT_SYMLINK_NOFOLLOW;
import static dev.ringfuse.fs.passthrough.PosixCalls.O_CLOEXEC;
import static dev.ringfuse.fs.passthrough.PosixCalls.O_NOFOLLOW;
import static dev.ringfuse.fs.passthrough.PosixCalls.O_PATH;

/**
 * What every part of the passthrough filesystem shares: the inode table, name resolution (the only place
 * names become descriptors) and errno handling.
 *
 * <p><b>Resolution.</b> A name is resolved with openat2(parent's O_PATH fd, name, O_PATH | O_NOFOLLOW,
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS): one component, never followed, never
 * above the parent. Everything after that is relative to the inode's own descriptor, so a symlink or a
 * rename elsewhere cannot redirect a call outside the source directory.
 */
abstract sealed class SourceTree implements LowLevelFileSystem permits FileIo {
    static final int S_IFMT = Attr.S_IFMT, S_IFDIR = Attr.S_IFDIR, S_IFREG = Attr.S_IFREG, S_IFLNK = Attr.S_IFLNK;
    static final long RESOLVE_IN_TREE = PosixCalls.RESOLVE_BENEATH | PosixCalls.RESOLVE_NO_MAGICLINKS
            | PosixCalls.RESOLVE_NO_SYMLINKS;
    static final int STATX_MASK = PosixCalls.STATX_BASIC_STATS | PosixCalls.STATX_BTIME;

    final Inodes inodes;
    /** 0 once INIT shows a mount without default_permissions (see {@link PassthroughFs#init}). */
    volatile long entryNanos;
    final long attrNanos;
    /**
     * No default_permissions: every call that the kernel would check runs as its caller
     * ({@link Credentials}), set once at INIT.
     */
    volatile boolean enforce;

    SourceTree(Inodes inodes, long entryNanos, long attrNanos) {
        this.inodes = inodes;
        this.entryNanos = entryNanos;
        this.attrNanos = attrNanos;
    }

    /** Opens the source directory as the root inode. */
    static Inodes openRoot(String source) {
        try (Arena a = Arena.ofConfined()) {
            int fd = check(PosixCalls.openat(AT_FDCWD, a.allocateFrom(source), O_PATH | PosixCalls.O_DIRECTORY | O_CLOEXEC, 0));
            MemorySegment st = a.allocate(Statx.SIZE, 8);
            check(PosixCalls.statx(fd, a.allocateFrom(""), AT_EMPTY_PATH, STATX_MASK, st));
            return new Inodes(fd, Statx.key(st));
        }
    }

    static FuseException error(int errno) {
        Errno e = Errno.of(errno);
        return new FuseException(e == null ? Errno.EIO : e);
    }

    /** {@code r} if not negative, else throws its errno. */
    static int check(int r) {
        if (r < 0) throw error(-r);
        return r;
    }

    static long check(long r) {
        if (r < 0) throw error((int) -r);
        return r;
    }

    /** A single path component: the kernel never sends a slash, but a name must not smuggle one in. */
    static MemorySegment name(Arena a, String name) {
        if (name.indexOf('/') >= 0 || name.isEmpty()) throw new FuseException(Errno.EINVAL);
        return bytes(a, name);
    }

    /** A C string of {@code s} with the exact bytes the kernel sent (names need not be UTF-8: {@link FileNames}). */
    static MemorySegment bytes(Arena a, String s) {
        byte[] b = FileNames.encode(s);
        MemorySegment seg = a.allocate(b.length + 1L); // zeroed: the NUL is there
        MemorySegment.copy(b, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b.length);
        return seg;
    }

    /** statx of the inode behind {@code fd} into {@code st}. */
    static void statx(int fd, MemorySegment st, Arena a) {
        check(PosixCalls.statx(fd, a.allocateFrom(""), AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MASK, st));
    }

    static Attr attr(Inode n) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(Statx.SIZE, 8);
            statx(n.fd, st, a);
            return Statx.attr(st);
        }
    }

    /**
     * Looks {@code name} up in {@code parent} and adds one lookup to its node. "." and ".." (asked for by
     * NFS export) resolve only to inodes already inside the tree.
     */
    final Entry lookupEntry(Inode parent, String name) {
        try (Arena a = Arena.ofConfined()) {
            int fd;
            if (name.equals(".") || (name.equals("..") && parent == inodes.root)) {
                fd = parent.fd;
            } else if (name.equals("..")) {
                fd = check(PosixCalls.openat(parent.fd, a.allocateFrom(".."), O_PATH | O_CLOEXEC, 0));
            } else {
                fd = openInTree(parent, name, a);
            }
            MemorySegment st = a.allocate(Statx.SIZE, 8);
            try {
                statx(fd, st, a);
                if (name.equals("..") && fd != parent.fd && inodes.find(Statx.key(st)) == null) {
                    throw new FuseException(Errno.ENOENT); // moved out of the tree behind our back
                }
            } catch (RuntimeException e) {
                if (fd != parent.fd) PosixCalls.close(fd);
                throw e;
            }
            Inode n = inodes.ref(Statx.key(st), fd, Statx.mode(st) & S_IFMT);
            return new Entry(n.nodeid, 0, Statx.attr(st), entryNanos, attrNanos);
        }
    }

    /**
     * An O_PATH descriptor of {@code name} in {@code parent}. A name that is a mount point is crossed into the mount,
     * as any other name, unless the mount is this filesystem's own (a source that contains the mount point): its
     * descriptor is then the directory the mount covers, as a bind mount without its submounts shows it. Crossing
     * into our own mount would make every call on the name a request to ourselves ({@link ServedMounts}).
     */
    private int openInTree(Inode parent, String name, Arena a) {
        MemorySegment nm = name(a, name);
        int fd = PosixCalls.openat2(parent.fd, nm, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, RESOLVE_IN_TREE | PosixCalls.RESOLVE_NO_XDEV, a);
        if (fd != -EXDEV) return check(fd);
        fd = check(PosixCalls.openat2(parent.fd, nm, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, RESOLVE_IN_TREE, a));
        MemorySegment st = a.allocate(Statx.SIZE, 8);
        // no request to the crossed mount's server (which may be this one): its cached attributes will do, the
        // device number is the superblock's
        int r = PosixCalls.statx(fd, a.allocateFrom(""), AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | PosixCalls.AT_STATX_DONT_SYNC,
                PosixCalls.STATX_TYPE, st);
        ServedMounts.Served own = r < 0 ? null : ServedMounts.at(Statx.devMajor(st), Statx.devMinor(st));
        if (r < 0 || own == null || own.filesystem() != this) {
            if (r >= 0) return fd;
            PosixCalls.close(fd);
            throw error(-r);
        }
        PosixCalls.close(fd);
        if (own.coveredFd() < 0) throw new FuseException(Errno.ENOENT);
        try {
            return Libc.fcntl(own.coveredFd(), F_DUPFD_CLOEXEC, 0);
        } catch (ErrnoException e) {
            throw error(e.errno());
        }
    }

    private static final int EXDEV = 18, F_DUPFD_CLOEXEC = 1030;

    static Attr withIno(Attr a, long ino) {
        return new Attr(ino, a.mode(), a.nlink(), a.uid(), a.gid(), a.rdev(), a.size(), a.blocks(), a.blksize(),
                a.atimeSec(), a.atimeNsec(), a.mtimeSec(), a.mtimeNsec(), a.ctimeSec(), a.ctimeNsec(),
                a.btimeSec(), a.btimeNsec());
    }

    /** An entry listed but not instantiated (readdirplus "." and ".."): node id 0 adds no lookup. */
    static Entry unnamed(Attr attr) {
        return new Entry(0, 0, attr, 0, 0);
    }
}
