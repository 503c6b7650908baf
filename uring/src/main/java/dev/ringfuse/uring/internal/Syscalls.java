package dev.ringfuse.uring.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The libc downcalls the binding needs: {@code syscall} for the three io_uring calls, {@code mmap}/{@code munmap}
 * for the rings, and {@code eventfd}/{@code read}/{@code write}/{@code close} for wake-ups.
 *
 * <p>Every call that can fail captures errno into a caller-provided segment of {@link #ERRNO_STATE} layout, so a
 * ring owner can allocate one once and keep the hot path allocation-free. Results are returned raw: a negative
 * value is {@code -errno} (the variadic {@code syscall} returns -1 and we substitute the captured errno).
 */
public final class Syscalls {
    private Syscalls() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    /** Layout of the captured call state; allocate one per owning thread/ring. */
    public static final MemoryLayout ERRNO_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_VH = ERRNO_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    // long syscall(long number, ...): everything after the number is variadic and read by glibc as long.
    private static final MethodHandle SYSCALL = downcall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1), ERRNO);
    private static final MethodHandle MMAP = downcall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), ERRNO);
    private static final MethodHandle MUNMAP = downcall("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG), ERRNO);
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), ERRNO);
    private static final MethodHandle EVENTFD = downcall("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), ERRNO);
    // write(2) on an eventfd from producer threads: no errno capture, so no per-call allocation anywhere.
    private static final MethodHandle WRITE_NOERRNO = downcall("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle PIPE2 = downcall("pipe2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), ERRNO);

    private static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol " + name));
        return LINKER.downcallHandle(sym, fd, options);
    }

    public static int errno(MemorySegment state) {
        return (int) ERRNO_VH.get(state, 0L);
    }

    /** A fresh errno capture segment from {@code arena}. */
    public static MemorySegment newErrnoState(Arena arena) {
        return arena.allocate(ERRNO_STATE);
    }

    private static long syscall(MemorySegment errno, long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            long r = (long) SYSCALL.invokeExact(errno, nr, a1, a2, a3, a4, a5, a6);
            return r == -1 ? -errno(errno) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** io_uring_setup(entries, params): the ring fd or -errno. */
    public static int ioUringSetup(MemorySegment errno, int entries, MemorySegment params) {
        return (int) syscall(errno, Abi.SYS_io_uring_setup, entries, params.address(), 0, 0, 0, 0);
    }

    /** io_uring_enter(fd, toSubmit, minComplete, flags, arg, argSize): submitted count or -errno. */
    public static int ioUringEnter(MemorySegment errno, int fd, int toSubmit, int minComplete, int flags,
                                   long arg, long argSize) {
        return (int) syscall(errno, Abi.SYS_io_uring_enter, fd, toSubmit, minComplete, flags, arg, argSize);
    }

    /** io_uring_register(fd, opcode, arg, nrArgs): result or -errno. */
    public static int ioUringRegister(MemorySegment errno, int fd, int opcode, long arg, int nrArgs) {
        return (int) syscall(errno, Abi.SYS_io_uring_register, fd, opcode, arg, nrArgs, 0, 0);
    }

    /** mmap(NULL, len, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, fd, offset): the mapping, or -errno. */
    public static long mmapShared(MemorySegment errno, int fd, long length, long offset) {
        try {
            MemorySegment p = (MemorySegment) MMAP.invokeExact(errno, MemorySegment.NULL, length,
                    Abi.PROT_READ | Abi.PROT_WRITE, Abi.MAP_SHARED | Abi.MAP_POPULATE, fd, offset);
            return p.address() == -1L ? -errno(errno) : p.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int munmap(MemorySegment errno, long address, long length) {
        try {
            int r = (int) MUNMAP.invokeExact(errno, MemorySegment.ofAddress(address), length);
            return r == -1 ? -errno(errno) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int close(MemorySegment errno, int fd) {
        try {
            int r = (int) CLOSE.invokeExact(errno, fd);
            return r == -1 ? -errno(errno) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** eventfd(0, EFD_CLOEXEC): the fd or -errno. */
    public static int eventfd(MemorySegment errno) {
        try {
            int r = (int) EVENTFD.invokeExact(errno, 0, Abi.EFD_CLOEXEC);
            return r == -1 ? -errno(errno) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pipe2(fds, flags): 0 or -errno; fds receives two ints. */
    public static int pipe2(MemorySegment errno, MemorySegment fds, int flags) {
        try {
            int r = (int) PIPE2.invokeExact(errno, fds, flags);
            return r == -1 ? -errno(errno) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** write(fd, buf, len) without errno: callers only care whether it worked. */
    public static long writeNoErrno(int fd, MemorySegment buf, long len) {
        try {
            return (long) WRITE_NOERRNO.invokeExact(fd, buf, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }
}
