package dev.ringfuse.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * PR_SET_IO_FLUSHER (Linux 5.6+): marks a thread as part of a block I/O path. The kernel then allocates
 * memory for it without starting I/O (PF_MEMALLOC_NOIO) and throttles its writes only against its own
 * device (PF_LOCAL_THROTTLE). A server under a loop device or swap needs it on every thread that serves
 * the mount or does its I/O: otherwise reclaim, waiting for dirty pages of the loop device to be written,
 * can wait for the very thread that would write them (a deadlock under memory pressure; the same reason
 * the kernel marks its own loop workers). The mark is per thread and inherited by threads created after it
 * (clone copies it), which includes io_uring's io-wq workers created on behalf of a marked submitter.
 * Needs CAP_SYS_RESOURCE.
 */
public final class IoFlusher {
    private static final int PR_SET_IO_FLUSHER = 57, PR_GET_IO_FLUSHER = 58;
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle PRCTL = LINKER.downcallHandle(
            LINKER.defaultLookup().find("prctl").orElseThrow(() -> new UnsatisfiedLinkError("prctl")),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(1));
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private IoFlusher() {}

    /**
     * Marks the calling thread, a thread that serves a mount. Returns null, or why the kernel refused,
     * which is also logged once per process as a warning (the mount still works, without the protection).
     */
    public static String markServingThread() {
        String why = markThisThread();
        if (why != null && WARNED.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "cannot mark the serving threads as I/O flushers (" + why
                    + "): a loop device or swap on this mount may deadlock under memory pressure");
        }
        return why;
    }

    /** Marks the calling thread. Returns null, or why the kernel refused. */
    public static String markThisThread() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int r = (int) PRCTL.invokeExact(st, PR_SET_IO_FLUSHER, 1L, 0L, 0L, 0L);
            if (r == 0) return null;
            int errno = (int) ERRNO.get(st, 0L);
            return switch (errno) {
                case 1 -> "EPERM: PR_SET_IO_FLUSHER needs CAP_SYS_RESOURCE, which this process lacks "
                        + "(run the server as root; some containers drop it even for root)";
                case 22 -> "EINVAL: the kernel has no PR_SET_IO_FLUSHER (Linux 5.6+)";
                default -> "errno " + errno;
            };
        } catch (Throwable t) {
            return t.toString();
        }
    }

    /** Whether the calling thread is marked (PR_GET_IO_FLUSHER). */
    public static boolean isThisThreadMarked() {
        try (Arena a = Arena.ofConfined()) {
            return (int) PRCTL.invokeExact(a.allocate(CAPTURE), PR_GET_IO_FLUSHER, 0L, 0L, 0L, 0L) == 1;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Runs {@code work} on a new marked platform thread and returns its result, so that the threads
     * {@code work} starts (I/O loops, their io-wq workers) inherit the mark while the caller's own thread
     * stays as it was.
     */
    public static <T> T onMarkedThread(Callable<T> work) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name("ringfuse-io-flusher-start").start(() -> {
            markThisThread();   // a refusal is reported by the serving threads, once the mount is up
            try {
                result.set(work.call());
            } catch (Exception e) {
                failure.set(e);
            } catch (Throwable e) {
                failure.set(new RuntimeException(e));
            }
        });
        t.join();
        if (failure.get() != null) throw failure.get();
        return result.get();
    }
}
