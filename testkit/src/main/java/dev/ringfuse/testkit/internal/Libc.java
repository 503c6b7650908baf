package dev.ringfuse.testkit.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The few libc calls the scenarios need that java.nio does not offer, each throwing {@link ErrnoException}
 * with the exact errno. Paths are Strings encoded as UTF-8 whatever the JVM's locale, so names with any
 * Unicode characters work. Linux x86-64 and arm64 only.
 */
public final class Libc {
    private Libc() {}

    public static final boolean ARM64 = System.getProperty("os.arch").equals("aarch64");
    public static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0100, O_EXCL = 0200,
            O_TRUNC = 01000, O_APPEND = 02000;
    public static final int O_DIRECTORY = ARM64 ? 040000 : 0200000;
    public static final int O_DIRECT = ARM64 ? 0200000 : 040000;
    public static final int O_TMPFILE = 020000000 | O_DIRECTORY;
    public static final int AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_SYMLINK_FOLLOW = 0x400,
            AT_EMPTY_PATH = 0x1000;
    public static final int SEEK_SET = 0, SEEK_END = 2, SEEK_DATA = 3, SEEK_HOLE = 4;
    public static final int FALLOC_FL_KEEP_SIZE = 1, FALLOC_FL_PUNCH_HOLE = 2;
    public static final int RENAME_NOREPLACE = 1, RENAME_EXCHANGE = 2;
    public static final int F_GETLK = 5, F_SETLK = 6, F_SETLKW = 7;
    public static final short F_RDLCK = 0, F_WRLCK = 1, F_UNLCK = 2;
    public static final int LOCK_SH = 1, LOCK_EX = 2, LOCK_NB = 4, LOCK_UN = 8;
    public static final int XATTR_CREATE = 1, XATTR_REPLACE = 2;
    public static final long UTIME_NOW = (1L << 30) - 1, UTIME_OMIT = (1L << 30) - 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static MethodHandle fn(String name, FunctionDescriptor fd, int firstVariadic) {
        MemorySegment sym = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        return firstVariadic < 0 ? LINKER.downcallHandle(sym, fd, capture)
                : LINKER.downcallHandle(sym, fd, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }

    private static MethodHandle fn(String name, FunctionDescriptor fd) { return fn(name, fd, -1); }

    private static final FunctionDescriptor I_SII = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
    private static final MethodHandle OPEN = fn("open", I_SII, 2);
    private static final MethodHandle CLOSE = fn("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle PREAD = fn("pread", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle PWRITE = fn("pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle WRITE = fn("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle LSEEK = fn("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle FALLOCATE = fn("fallocate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle COPY_FILE_RANGE = fn("copy_file_range",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle RENAMEAT2 = fn("renameat2",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle MKNODAT = fn("mknodat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MKDIR = fn("mkdir", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle UNLINK = fn("unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle RMDIR = fn("rmdir", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CHMOD = fn("chmod", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LCHOWN = fn("lchown", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle TRUNCATE = fn("truncate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle UMOUNT2 = fn("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LINKAT = fn("linkat",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle STATX = fn("statx",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle STATFS = fn("statfs", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle UTIMENSAT = fn("utimensat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle LSETXATTR = fn("lsetxattr",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle LGETXATTR = fn("lgetxattr", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle LLISTXATTR = fn("llistxattr", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle LREMOVEXATTR = fn("lremovexattr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle FLOCK = fn("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle FCNTL = fn("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), 2);
    private static final MethodHandle GETDENTS64 = fn("getdents64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle GETEUID = fn("geteuid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETPID = fn("getpid", FunctionDescriptor.of(JAVA_INT));

    /** Invokes {@code mh} with an errno capture segment in front; -1 becomes an {@link ErrnoException}. */
    private static long call(String what, MethodHandle mh, Object... args) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            Object[] full = new Object[args.length + 1];
            full[0] = state;
            System.arraycopy(args, 0, full, 1, args.length);
            Object r = mh.invokeWithArguments(full);
            long v = r instanceof Integer i ? i : (Long) r;
            if (v == -1) throw new ErrnoException(what, (int) ERRNO.get(state, 0L));
            return v;
        } catch (ErrnoException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(what, t);
        }
    }

    private static MemorySegment str(Arena a, String s) { return a.allocateFrom(s, StandardCharsets.UTF_8); }

    public static int open(String path, int flags, int mode) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { return (int) call("open " + path, OPEN, str(a, path), flags, mode); }
    }

    public static void close(int fd) throws ErrnoException { call("close", CLOSE, fd); }

    public static byte[] pread(int fd, int len, long offset) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(len, 4096);
            int n = (int) call("pread", PREAD, fd, buf, (long) len, offset);
            return buf.asSlice(0, n).toArray(JAVA_BYTE);
        }
    }

    public static long pwrite(int fd, byte[] data, long offset) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(data.length, 4096);
            buf.copyFrom(MemorySegment.ofArray(data));
            return call("pwrite", PWRITE, fd, buf, (long) data.length, offset);
        }
    }

    public static long write(int fd, byte[] data) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            return call("write", WRITE, fd, a.allocateFrom(JAVA_BYTE, data), (long) data.length);
        }
    }

    public static long lseek(int fd, long offset, int whence) throws ErrnoException {
        return call("lseek", LSEEK, fd, offset, whence);
    }

    public static void fallocate(int fd, int mode, long offset, long len) throws ErrnoException {
        call("fallocate", FALLOCATE, fd, mode, offset, len);
    }

    /** copy_file_range with explicit offsets; returns the bytes copied. */
    public static long copyFileRange(int in, long offIn, int out, long offOut, long len) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            return call("copy_file_range", COPY_FILE_RANGE, in, a.allocateFrom(JAVA_LONG, offIn), out,
                    a.allocateFrom(JAVA_LONG, offOut), len, 0);
        }
    }

    public static void renameat2(String from, String to, int flags) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            call("renameat2 " + from + " -> " + to, RENAMEAT2, AT_FDCWD, str(a, from), AT_FDCWD, str(a, to), flags);
        }
    }

    public static long makedev(int major, int minor) {
        return ((long) (major & 0xfffff000) << 32) | ((major & 0xfffL) << 8)
                | ((long) (minor & 0xffffff00) << 12) | (minor & 0xffL);
    }

    public static void mknod(String path, int mode, long dev) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("mknod " + path, MKNODAT, AT_FDCWD, str(a, path), mode, dev); }
    }

    public static void mkdir(String path, int mode) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("mkdir " + path, MKDIR, str(a, path), mode); }
    }

    public static void unlink(String path) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("unlink " + path, UNLINK, str(a, path)); }
    }

    public static void rmdir(String path) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("rmdir " + path, RMDIR, str(a, path)); }
    }

    public static void chmod(String path, int mode) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("chmod " + path, CHMOD, str(a, path), mode); }
    }

    public static void lchown(String path, int uid, int gid) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("lchown " + path, LCHOWN, str(a, path), uid, gid); }
    }

    public static void truncate(String path, long len) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("truncate " + path, TRUNCATE, str(a, path), len); }
    }

    /** umount2 with MNT_DETACH (2) when {@code lazy}. */
    public static void umount(String path, boolean lazy) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("umount2 " + path, UMOUNT2, str(a, path), lazy ? 2 : 0); }
    }

    /** linkat(AT_FDCWD, from, AT_FDCWD, to, flags). */
    public static void linkat(String from, String to, int flags) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            call("linkat " + from + " -> " + to, LINKAT, AT_FDCWD, str(a, from), AT_FDCWD, str(a, to), flags);
        }
    }

    /** statx of a path, not following a final symlink. */
    public static Stat lstat(String path) throws ErrnoException { return statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW); }

    /** statx of a path, following symlinks. */
    public static Stat stat(String path) throws ErrnoException { return statx(AT_FDCWD, path, 0); }

    /** statx of an open file descriptor. */
    public static Stat fstat(int fd) throws ErrnoException { return statx(fd, "", AT_EMPTY_PATH); }

    private static Stat statx(int dirfd, String path, int flags) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment b = a.allocate(256, 8);
            call("statx " + path, STATX, dirfd, str(a, path), flags, 0xfff /* STATX_BASIC_STATS | BTIME */, b);
            return new Stat(Short.toUnsignedInt(b.get(JAVA_SHORT, 28)), b.get(JAVA_LONG, 32),
                    Integer.toUnsignedLong(b.get(JAVA_INT, 16)), b.get(JAVA_INT, 20), b.get(JAVA_INT, 24),
                    b.get(JAVA_LONG, 40), b.get(JAVA_LONG, 48), b.get(JAVA_INT, 4),
                    ts(b, 64), ts(b, 112), ts(b, 96),
                    b.get(JAVA_INT, 128), b.get(JAVA_INT, 132), b.get(JAVA_INT, 136), b.get(JAVA_INT, 140));
        }
    }

    private static long ts(MemorySegment b, long off) {
        return b.get(JAVA_LONG, off) * 1_000_000_000L + Integer.toUnsignedLong(b.get(JAVA_INT, off + 8));
    }

    public static StatFs statfs(String path) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment b = a.allocate(120, 8);
            call("statfs " + path, STATFS, str(a, path), b);
            return new StatFs(b.get(JAVA_LONG, 0), b.get(JAVA_LONG, 8), b.get(JAVA_LONG, 16), b.get(JAVA_LONG, 24),
                    b.get(JAVA_LONG, 32), b.get(JAVA_LONG, 40), b.get(JAVA_LONG, 48), b.get(JAVA_LONG, 64),
                    b.get(JAVA_LONG, 72));
        }
    }

    /** utimensat(AT_FDCWD, path, {atime, mtime}, flags); nanosecond fields may be UTIME_NOW or UTIME_OMIT. */
    public static void utimensat(String path, long aSec, long aNsec, long mSec, long mNsec, int flags) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocateFrom(JAVA_LONG, aSec, aNsec, mSec, mNsec);
            call("utimensat " + path, UTIMENSAT, AT_FDCWD, str(a, path), t, flags);
        }
    }

    public static void setxattr(String path, String name, byte[] value, int flags) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = value.length == 0 ? a.allocate(1) : a.allocateFrom(JAVA_BYTE, value);
            call("setxattr " + name, LSETXATTR, str(a, path), str(a, name), v, (long) value.length, flags);
        }
    }

    public static byte[] getxattr(String path, String name) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            long size = call("getxattr " + name, LGETXATTR, str(a, path), str(a, name), MemorySegment.NULL, 0L);
            MemorySegment v = a.allocate(Math.max(1, size));
            long n = call("getxattr " + name, LGETXATTR, str(a, path), str(a, name), v, size);
            return v.asSlice(0, n).toArray(JAVA_BYTE);
        }
    }

    /** getxattr into a buffer of exactly {@code size} bytes (to provoke ERANGE). */
    public static long getxattrSize(String path, String name, long size) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            return call("getxattr " + name, LGETXATTR, str(a, path), str(a, name), a.allocate(Math.max(1, size)), size);
        }
    }

    public static List<String> listxattr(String path) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            long size = call("listxattr", LLISTXATTR, str(a, path), MemorySegment.NULL, 0L);
            MemorySegment v = a.allocate(Math.max(1, size));
            long n = call("listxattr", LLISTXATTR, str(a, path), v, size);
            List<String> names = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < n; i++) {
                if (v.get(JAVA_BYTE, i) == 0) {
                    names.add(new String(v.asSlice(start, i - start).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            return names;
        }
    }

    public static void removexattr(String path, String name) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("removexattr " + name, LREMOVEXATTR, str(a, path), str(a, name)); }
    }

    public static void flock(int fd, int op) throws ErrnoException { call("flock", FLOCK, fd, op); }

    /** A POSIX record lock as struct flock reports it. */
    public record RecordLock(short type, long start, long len, int pid) {}

    /** fcntl(F_SETLK / F_SETLKW) of {@code type} over [start, start+len) (len 0: to the end). */
    public static void setlk(int fd, int cmd, short type, long start, long len) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) { call("fcntl", FCNTL, fd, cmd, flock(a, type, start, len)); }
    }

    /** fcntl(F_GETLK): the first lock that would block {@code type}, or type F_UNLCK. */
    public static RecordLock getlk(int fd, short type, long start, long len) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment f = flock(a, type, start, len);
            call("fcntl F_GETLK", FCNTL, fd, F_GETLK, f);
            return new RecordLock(f.get(JAVA_SHORT, 0), f.get(JAVA_LONG, 8), f.get(JAVA_LONG, 16), f.get(JAVA_INT, 24));
        }
    }

    private static MemorySegment flock(Arena a, short type, long start, long len) {
        MemorySegment f = a.allocate(32, 8);
        f.set(JAVA_SHORT, 0, type);
        f.set(JAVA_SHORT, 2, (short) SEEK_SET);
        f.set(JAVA_LONG, 8, start);
        f.set(JAVA_LONG, 16, len);
        return f;
    }

    /** Every name in a directory (without "." and ".."), read with raw getdents64, in the order returned. */
    public static List<String> listDir(String dir, int bufSize) throws ErrnoException {
        int fd = open(dir, O_RDONLY | O_DIRECTORY, 0);
        List<String> names = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(bufSize, 8);
            while (true) {
                long n = call("getdents64", GETDENTS64, fd, buf, (long) bufSize);
                if (n == 0) break;
                for (long off = 0; off < n; ) {
                    int reclen = Short.toUnsignedInt(buf.get(JAVA_SHORT, off + 16));
                    String name = buf.getString(off + 19, StandardCharsets.UTF_8);
                    if (!name.equals(".") && !name.equals("..")) names.add(name);
                    off += reclen;
                }
            }
        } finally {
            close(fd);
        }
        return names;
    }

    public static int geteuid() {
        try { return (int) call("geteuid", GETEUID); } catch (ErrnoException e) { throw new IllegalStateException(e); }
    }

    public static int getpid() {
        try { return (int) call("getpid", GETPID); } catch (ErrnoException e) { throw new IllegalStateException(e); }
    }
}
