package dev.ringfuse.fs.passthrough;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The fd-relative libc calls the passthrough filesystem needs, each returning its C result or
 * {@code -errno} (no exceptions, no allocation on the data path). Strings and structs live in the
 * caller's arena. x86-64 and arm64 Linux (glibc); statx is used instead of struct stat because its layout is
 * the same on every architecture.
 */
final class PosixCalls {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> STATE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_ACCMODE = 3, O_CREAT = 0100, O_EXCL = 0200,
            O_NOCTTY = 0400, O_TRUNC = 01000, O_APPEND = 02000, O_CLOEXEC = 02000000, O_PATH = 010000000;
    // the three that differ on arm64
    static final int O_DIRECTORY = dev.ringfuse.uring.OpenFlags.O_DIRECTORY, O_NOFOLLOW = dev.ringfuse.uring.OpenFlags.O_NOFOLLOW,
            O_DIRECT = dev.ringfuse.uring.OpenFlags.O_DIRECT;
    static final int AT_FDCWD = -100, AT_SYMLINK_NOFOLLOW = 0x100, AT_SYMLINK_FOLLOW = 0x400, AT_REMOVEDIR = 0x200, AT_EMPTY_PATH = 0x1000, AT_STATX_DONT_SYNC = 0x4000;
    static final long RESOLVE_NO_XDEV = 0x01, RESOLVE_NO_MAGICLINKS = 0x02, RESOLVE_NO_SYMLINKS = 0x04, RESOLVE_BENEATH = 0x08;
    static final int STATX_TYPE = 0x1, STATX_BASIC_STATS = 0x7ff, STATX_BTIME = 0x800;
    private static final long SYS_OPENAT2 = 437;
    /** setgroups(2) as a raw system call: per thread (glibc's wrapper changes every thread of the process). */
    private static final long SYS_SETGROUPS = switch (System.getProperty("os.arch")) {
        case "aarch64" -> 159;
        default -> 116;
    };
    static final int F_OK = 0, X_OK = 1, W_OK = 2, R_OK = 4, AT_EACCESS = 0x200;

    private static final MethodHandle SYSCALL = call("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG), 1);
    private static final MethodHandle OPENAT = call("openat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 3);
    private static final MethodHandle CLOSE = call("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle STATX = call("statx", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), -1);
    private static final MethodHandle FCHOWNAT = call("fchownat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle FCHMODAT = call("fchmodat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle MKNODAT = call("mknodat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG), -1);
    private static final MethodHandle MKDIRAT = call("mkdirat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle UNLINKAT = call("unlinkat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle RENAMEAT2 = call("renameat2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle LINKAT = call("linkat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle SYMLINKAT = call("symlinkat", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), -1);
    private static final MethodHandle READLINKAT = call("readlinkat", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle GETXATTR = call("getxattr", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle SETXATTR = call("setxattr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), -1);
    private static final MethodHandle LISTXATTR = call("listxattr", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle REMOVEXATTR = call("removexattr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), -1);
    private static final MethodHandle FALLOCATE = call("fallocate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), -1);
    private static final MethodHandle LSEEK = call("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT), -1);
    private static final MethodHandle COPY_FILE_RANGE = call("copy_file_range", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), -1);
    private static final MethodHandle PREAD = call("pread", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), -1);
    private static final MethodHandle PWRITE = call("pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG), -1);
    private static final MethodHandle FTRUNCATE = call("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), -1);
    private static final MethodHandle TRUNCATE = call("truncate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle UTIMENSAT = call("utimensat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle GETDENTS64 = call("getdents64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle SETFSUID = call("setfsuid", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle SETFSGID = call("setfsgid", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle FSYNC = call("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle FDATASYNC = call("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle FACCESSAT = call("faccessat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle FSTATFS = call("fstatfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), -1);

    private PosixCalls() {}

    private static MethodHandle call(String name, FunctionDescriptor fd, int firstVariadic) {
        MemorySegment sym = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        return firstVariadic < 0 ? LINKER.downcallHandle(sym, fd, capture)
                : LINKER.downcallHandle(sym, fd, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }

    private static long r(MemorySegment st, long result) {
        return result >= 0 ? result : -(int) ERRNO.get(st, 0L);
    }

    private static int r(MemorySegment st, int result) {
        return result >= 0 ? result : -(int) ERRNO.get(st, 0L);
    }

    private static RuntimeException fail(Throwable t) {
        if (t instanceof RuntimeException e) return e;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    /** openat2(2) with {@code resolve} flags: the way every name is resolved, so nothing escapes. */
    static int openat2(int dirfd, MemorySegment name, long flags, long mode, long resolve, Arena a) {
        MemorySegment how = a.allocate(24, 8);
        how.set(JAVA_LONG, 0, flags);
        how.set(JAVA_LONG, 8, mode);
        how.set(JAVA_LONG, 16, resolve);
        MemorySegment st = STATE.get();
        try { return (int) r(st, (long) SYSCALL.invokeExact(st, SYS_OPENAT2, (long) dirfd, name, how, 24L)); } catch (Throwable t) { throw fail(t); }
    }

    static int openat(int dirfd, MemorySegment path, int flags, int mode) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) OPENAT.invokeExact(st, dirfd, path, flags, mode)); } catch (Throwable t) { throw fail(t); }
    }

    static void close(int fd) {
        if (fd < 0) return;
        try { int ignored = (int) CLOSE.invokeExact(STATE.get(), fd); } catch (Throwable t) { throw fail(t); }
    }

    static int statx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment buf) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) STATX.invokeExact(st, dirfd, path, flags, mask, buf)); } catch (Throwable t) { throw fail(t); }
    }

    static int fchownat(int dirfd, MemorySegment path, int uid, int gid, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) FCHOWNAT.invokeExact(st, dirfd, path, uid, gid, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static int fchmodat(int dirfd, MemorySegment path, int mode, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) FCHMODAT.invokeExact(st, dirfd, path, mode, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static int mknodat(int dirfd, MemorySegment name, int mode, long dev) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) MKNODAT.invokeExact(st, dirfd, name, mode, dev)); } catch (Throwable t) { throw fail(t); }
    }

    static int mkdirat(int dirfd, MemorySegment name, int mode) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) MKDIRAT.invokeExact(st, dirfd, name, mode)); } catch (Throwable t) { throw fail(t); }
    }

    static int unlinkat(int dirfd, MemorySegment name, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) UNLINKAT.invokeExact(st, dirfd, name, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static int renameat2(int olddir, MemorySegment oldName, int newdir, MemorySegment newName, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) RENAMEAT2.invokeExact(st, olddir, oldName, newdir, newName, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static int linkat(int olddir, MemorySegment oldName, int newdir, MemorySegment newName, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) LINKAT.invokeExact(st, olddir, oldName, newdir, newName, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static int symlinkat(MemorySegment target, int dirfd, MemorySegment name) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) SYMLINKAT.invokeExact(st, target, dirfd, name)); } catch (Throwable t) { throw fail(t); }
    }

    static long readlinkat(int dirfd, MemorySegment path, MemorySegment buf) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) READLINKAT.invokeExact(st, dirfd, path, buf, buf.byteSize())); } catch (Throwable t) { throw fail(t); }
    }

    static long getxattr(MemorySegment path, MemorySegment name, MemorySegment buf) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) GETXATTR.invokeExact(st, path, name, buf, buf.byteSize())); } catch (Throwable t) { throw fail(t); }
    }

    static int setxattr(MemorySegment path, MemorySegment name, MemorySegment value, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) SETXATTR.invokeExact(st, path, name, value, value.byteSize(), flags)); } catch (Throwable t) { throw fail(t); }
    }

    static long listxattr(MemorySegment path, MemorySegment buf) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) LISTXATTR.invokeExact(st, path, buf, buf.byteSize())); } catch (Throwable t) { throw fail(t); }
    }

    static int removexattr(MemorySegment path, MemorySegment name) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) REMOVEXATTR.invokeExact(st, path, name)); } catch (Throwable t) { throw fail(t); }
    }

    static int fallocate(int fd, int mode, long off, long len) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) FALLOCATE.invokeExact(st, fd, mode, off, len)); } catch (Throwable t) { throw fail(t); }
    }

    static long lseek(int fd, long off, int whence) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) LSEEK.invokeExact(st, fd, off, whence)); } catch (Throwable t) { throw fail(t); }
    }

    /** copy_file_range(2) with explicit offsets (the descriptors' positions are not used). */
    static long copyFileRange(int fdIn, long offIn, int fdOut, long offOut, long len, int flags, Arena a) {
        MemorySegment in = a.allocateFrom(JAVA_LONG, offIn), out = a.allocateFrom(JAVA_LONG, offOut);
        MemorySegment st = STATE.get();
        try { return r(st, (long) COPY_FILE_RANGE.invokeExact(st, fdIn, in, fdOut, out, len, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static long pread(int fd, MemorySegment buf, long off) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) PREAD.invokeExact(st, fd, buf, buf.byteSize(), off)); } catch (Throwable t) { throw fail(t); }
    }

    static long pwrite(int fd, MemorySegment buf, long off) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) PWRITE.invokeExact(st, fd, buf, buf.byteSize(), off)); } catch (Throwable t) { throw fail(t); }
    }

    static int ftruncate(int fd, long size) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) FTRUNCATE.invokeExact(st, fd, size)); } catch (Throwable t) { throw fail(t); }
    }

    static int truncate(MemorySegment path, long size) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) TRUNCATE.invokeExact(st, path, size)); } catch (Throwable t) { throw fail(t); }
    }

    static int utimensat(int dirfd, MemorySegment path, MemorySegment times, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) UTIMENSAT.invokeExact(st, dirfd, path, times, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static long getdents64(int fd, MemorySegment buf) {
        MemorySegment st = STATE.get();
        try { return r(st, (long) GETDENTS64.invokeExact(st, fd, buf, buf.byteSize())); } catch (Throwable t) { throw fail(t); }
    }

    /** setfsuid(2): per thread; returns the previous fsuid (it cannot report failure). */
    static int setfsuid(int uid) {
        try { return (int) SETFSUID.invokeExact(STATE.get(), uid); } catch (Throwable t) { throw fail(t); }
    }

    static int setfsgid(int gid) {
        try { return (int) SETFSGID.invokeExact(STATE.get(), gid); } catch (Throwable t) { throw fail(t); }
    }

    /** setgroups for the calling thread only (raw system call); 0 or -errno. */
    static int setgroupsThisThread(int[] groups, Arena a) {
        MemorySegment list = groups.length == 0 ? MemorySegment.NULL : a.allocateFrom(JAVA_INT, groups);
        MemorySegment st = STATE.get();
        try { return (int) r(st, (long) SYSCALL.invokeExact(st, SYS_SETGROUPS, (long) groups.length, list, MemorySegment.NULL, 0L)); } catch (Throwable t) { throw fail(t); }
    }

    /** faccessat(2) (glibc uses faccessat2 for the flags). */
    static int faccessat(int dirfd, MemorySegment path, int mode, int flags) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) FACCESSAT.invokeExact(st, dirfd, path, mode, flags)); } catch (Throwable t) { throw fail(t); }
    }

    static int fsync(int fd, boolean datasync) {
        MemorySegment st = STATE.get();
        try { return r(st, datasync ? (int) FDATASYNC.invokeExact(st, fd) : (int) FSYNC.invokeExact(st, fd)); } catch (Throwable t) { throw fail(t); }
    }

    /** fstatfs(2) into {@code buf} (struct statfs, 120 bytes on 64-bit Linux). */
    static int fstatfs(int fd, MemorySegment buf) {
        MemorySegment st = STATE.get();
        try { return r(st, (int) FSTATFS.invokeExact(st, fd, buf)); } catch (Throwable t) { throw fail(t); }
    }
}
