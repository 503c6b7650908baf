package dev.ringfuse.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * libc downcalls. Every call that can fail captures errno in a per-thread state segment; the raw
 * methods return the C result and leave the errno in {@link #errno()} of the calling thread, the
 * checked ones throw {@link ErrnoException}. Hot-path calls (read, write) return {@code -errno} so that
 * the transport loop allocates nothing.
 */
public final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    public static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CLOEXEC = 0x80000, O_NONBLOCK = 0x800;
    public static final int F_GETFD = 1, F_SETFD = 2, FD_CLOEXEC = 1;
    public static final int AF_UNIX = 1, SOCK_STREAM = 1, SOCK_CLOEXEC = O_CLOEXEC;
    public static final int MNT_FORCE = 1, MNT_DETACH = 2;
    public static final long MS_RDONLY = 1, MS_NOSUID = 2, MS_NODEV = 4, MS_NOEXEC = 8;

    private static final MethodHandle OPEN = errnoCall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle CLOSE = errnoCall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle READ = errnoCall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle WRITE = errnoCall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), -1);
    private static final MethodHandle WRITEV = errnoCall("writev", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle IOCTL = errnoCall("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), 2);
    private static final MethodHandle FCNTL = errnoCall("fcntl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle MOUNT = errnoCall("mount", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), -1);
    private static final MethodHandle UMOUNT2 = errnoCall("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle SOCKETPAIR = errnoCall("socketpair", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), -1);
    private static final MethodHandle RECVMSG = errnoCall("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle WAITPID = errnoCall("waitpid", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), -1);
    private static final MethodHandle SPAWNP = plainCall("posix_spawnp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle FA_INIT = plainCall("posix_spawn_file_actions_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle FA_DUP2 = plainCall("posix_spawn_file_actions_adddup2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle FA_DESTROY = plainCall("posix_spawn_file_actions_destroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SCHED_SETAFFINITY = errnoCall("sched_setaffinity", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), -1);
    private static final MethodHandle SCHED_SETSCHEDULER = errnoCall("sched_setscheduler", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS), -1);
    private static final MethodHandle EVENTFD = errnoCall("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle GETUID = plainCall("getuid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETGID = plainCall("getgid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETEUID = plainCall("geteuid", FunctionDescriptor.of(JAVA_INT));

    /** The size of glibc's posix_spawn_file_actions_t on x86-64 and arm64. */
    public static final long SPAWN_FILE_ACTIONS_SIZE = 80;

    private Libc() {}

    private static MethodHandle errnoCall(String name, FunctionDescriptor fd, int firstVariadic) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        return firstVariadic < 0
                ? LINKER.downcallHandle(sym, fd, capture)
                : LINKER.downcallHandle(sym, fd, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }

    private static MethodHandle plainCall(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name)), fd);
    }

    /** The errno left by this thread's last failing call through this class. */
    public static int errno() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    // ---- hot path: results as -errno, no allocation ----

    /** read(2); returns the byte count or -errno. */
    public static long read(int fd, MemorySegment buf, long len) {
        MemorySegment st = STATE.get();
        try {
            long n = (long) READ.invokeExact(st, fd, buf, len);
            return n >= 0 ? n : -(int) ERRNO.get(st, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** write(2); returns the byte count or -errno. */
    public static long write(int fd, MemorySegment buf, long len) {
        MemorySegment st = STATE.get();
        try {
            long n = (long) WRITE.invokeExact(st, fd, buf, len);
            return n >= 0 ? n : -(int) ERRNO.get(st, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** writev(2) over {@code count} iovecs at {@code iov}; returns the byte count or -errno. */
    public static long writev(int fd, MemorySegment iov, int count) {
        MemorySegment st = STATE.get();
        try {
            long n = (long) WRITEV.invokeExact(st, fd, iov, count);
            return n >= 0 ? n : -(int) ERRNO.get(st, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- checked calls ----

    public static int open(String path, int flags, int mode) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = STATE.get();
            int fd = (int) OPEN.invokeExact(st, a.allocateFrom(path), flags, mode);
            if (fd < 0) throw new ErrnoException("open " + path, (int) ERRNO.get(st, 0L));
            return fd;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** close(2); errors are ignored (the descriptor is gone either way on Linux). */
    public static void close(int fd) {
        if (fd < 0) return;
        try {
            int ignored = (int) CLOSE.invokeExact(STATE.get(), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** ioctl(2) with a pointer argument; returns the result or throws. */
    public static int ioctl(int fd, long request, MemorySegment arg, String what) throws ErrnoException {
        MemorySegment st = STATE.get();
        try {
            int r = (int) IOCTL.invokeExact(st, fd, request, arg);
            if (r < 0) throw new ErrnoException(what, (int) ERRNO.get(st, 0L));
            return r;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int fcntl(int fd, int cmd, int arg) throws ErrnoException {
        MemorySegment st = STATE.get();
        try {
            int r = (int) FCNTL.invokeExact(st, fd, cmd, arg);
            if (r < 0) throw new ErrnoException("fcntl", (int) ERRNO.get(st, 0L));
            return r;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void mount(String source, String target, String type, long flags, String data) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = STATE.get();
            int r = (int) MOUNT.invokeExact(st, a.allocateFrom(source), a.allocateFrom(target), a.allocateFrom(type),
                    flags, a.allocateFrom(data));
            if (r < 0) throw new ErrnoException("mount " + target, (int) ERRNO.get(st, 0L));
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void umount2(String target, int flags) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = STATE.get();
            int r = (int) UMOUNT2.invokeExact(st, a.allocateFrom(target), flags);
            if (r < 0) throw new ErrnoException("umount2 " + target, (int) ERRNO.get(st, 0L));
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** socketpair(2); returns the two descriptors. */
    public static int[] socketpair(int domain, int type) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = STATE.get();
            MemorySegment fds = a.allocate(JAVA_INT, 2);
            int r = (int) SOCKETPAIR.invokeExact(st, domain, type, 0, fds);
            if (r < 0) throw new ErrnoException("socketpair", (int) ERRNO.get(st, 0L));
            return new int[] {fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** recvmsg(2); returns the byte count or throws. */
    public static long recvmsg(int fd, MemorySegment msghdr, int flags) throws ErrnoException {
        MemorySegment st = STATE.get();
        try {
            while (true) {
                long n = (long) RECVMSG.invokeExact(st, fd, msghdr, flags);
                if (n >= 0) return n;
                int e = (int) ERRNO.get(st, 0L);
                if (e != 4) throw new ErrnoException("recvmsg", e);
            }
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** waitpid(2); returns the raw wait status. */
    public static int waitpid(int pid) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = STATE.get();
            MemorySegment status = a.allocate(JAVA_INT);
            while (true) {
                int r = (int) WAITPID.invokeExact(st, pid, status, 0);
                if (r >= 0) return status.get(JAVA_INT, 0);
                int e = (int) ERRNO.get(st, 0L);
                if (e != 4) throw new ErrnoException("waitpid", e);
            }
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * posix_spawnp(3) of {@code argv} with {@code env}, with {@code dupFrom} duplicated onto {@code dupTo}
     * in the child (the one way to hand a descriptor to a child: ProcessBuilder closes all above 2).
     */
    public static int spawnp(String[] argv, String[] env, int dupFrom, int dupTo) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pid = a.allocate(JAVA_INT);
            MemorySegment actions = a.allocate(SPAWN_FILE_ACTIONS_SIZE, 16);
            int r = (int) FA_INIT.invokeExact(actions);
            if (r != 0) throw new ErrnoException("posix_spawn_file_actions_init", r);
            try {
                if (dupFrom >= 0) {
                    r = (int) FA_DUP2.invokeExact(actions, dupFrom, dupTo);
                    if (r != 0) throw new ErrnoException("posix_spawn_file_actions_adddup2", r);
                }
                r = (int) SPAWNP.invokeExact(pid, a.allocateFrom(argv[0]), actions, MemorySegment.NULL,
                        cStrings(a, argv), cStrings(a, env));
                if (r != 0) throw new ErrnoException("posix_spawnp " + argv[0], r);
                return pid.get(JAVA_INT, 0);
            } finally {
                int ignored = (int) FA_DESTROY.invokeExact(actions);
            }
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MemorySegment cStrings(Arena a, String[] strings) {
        MemorySegment array = a.allocate(ADDRESS, strings.length + 1);
        for (int i = 0; i < strings.length; i++) array.setAtIndex(ADDRESS, i, a.allocateFrom(strings[i]));
        array.setAtIndex(ADDRESS, strings.length, MemorySegment.NULL);
        return array;
    }

    /** Pins the calling thread to one CPU; returns false if the kernel refused. */
    public static boolean pinToCpu(int cpu) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mask = a.allocate(128);
            mask.set(java.lang.foreign.ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            return (int) SCHED_SETAFFINITY.invokeExact(STATE.get(), 0, 128L, mask) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Puts the calling thread in SCHED_IDLE (it runs only when its CPU has nothing else to run); false if
     * the kernel refused. Any thread may lower its own class; no thread can come back without CAP_SYS_NICE.
     */
    public static boolean schedIdle() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment param = a.allocate(JAVA_INT); // struct sched_param { int sched_priority = 0; }
            return (int) SCHED_SETSCHEDULER.invokeExact(STATE.get(), 0, 5, param) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static final int EFD_CLOEXEC = O_CLOEXEC, EFD_NONBLOCK = O_NONBLOCK;

    /** eventfd(2). */
    public static int eventfd(int flags) throws ErrnoException {
        MemorySegment st = STATE.get();
        try {
            int fd = (int) EVENTFD.invokeExact(st, 0, flags);
            if (fd < 0) throw new ErrnoException("eventfd", (int) ERRNO.get(st, 0L));
            return fd;
        } catch (ErrnoException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int getuid() { return plainInt(GETUID); }

    public static int getgid() { return plainInt(GETGID); }

    public static int geteuid() { return plainInt(GETEUID); }

    private static int plainInt(MethodHandle h) {
        try {
            return (int) h.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A zeroed native segment of {@code size} bytes in {@code arena}, aligned to a page. */
    public static MemorySegment pageAligned(Arena arena, long size) {
        return arena.allocate(size, 4096);
    }
}
