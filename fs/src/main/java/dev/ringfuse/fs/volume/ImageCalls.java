package dev.ringfuse.fs.volume;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc calls on the image that neither the io_uring file API nor the JDK offers with a raw
 * descriptor: fallocate(2) (hole punching for discard) and ftruncate(2) (resizable volumes). They are rare
 * and cheap, so they run on the calling thread rather than through a ring.
 */
final class ImageCalls {
    static final int FALLOC_FL_KEEP_SIZE = 0x01;
    static final int FALLOC_FL_PUNCH_HOLE = 0x02;
    static final int FALLOC_FL_ZERO_RANGE = 0x10;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle FALLOCATE = errnoCall("fallocate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle FTRUNCATE = errnoCall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));

    private ImageCalls() {}

    private static MethodHandle errnoCall(String name, FunctionDescriptor fd) {
        MemorySegment sym = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        return LINKER.downcallHandle(sym, fd, Linker.Option.captureCallState("errno"));
    }

    /** fallocate(2); failures become a {@link FuseException} carrying the errno, which is what callers reply. */
    static void fallocate(int fd, int mode, long offset, long length) {
        check("fallocate", FALLOCATE, fd, mode, offset, length);
    }

    /** ftruncate(2). */
    static void ftruncate(int fd, long size) {
        check("ftruncate", FTRUNCATE, fd, -1, size, 0);
    }

    private static void check(String call, MethodHandle h, int fd, int mode, long a, long b) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(STATE);
            int r = mode < 0 ? (int) h.invokeExact(state, fd, a) : (int) h.invokeExact(state, fd, mode, a, b);
            if (r < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                Errno e = Errno.of(errno);
                throw new FuseException(e == null ? Errno.EIO : e, call + ": " + Errno.describe(errno));
            }
        } catch (FuseException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(call, t);
        }
    }
}
