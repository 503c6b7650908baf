package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;
import dev.ringfuse.uring.internal.Errno;
import dev.ringfuse.uring.internal.SubmissionQueue;
import dev.ringfuse.uring.internal.Syscalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One io_uring instance: the low-level API for transports.
 *
 * <p><b>Threading.</b> A ring is owned by one platform thread: the thread that creates it must be the one that
 * prepares SQEs, submits, reaps, registers and closes (the kernel enforces this for SINGLE_ISSUER rings, and
 * io_uring_enter blocks, which would pin a virtual thread's carrier). Nothing here is thread-safe.
 *
 * <p><b>Cycle.</b>
 * <pre>{@code
 * try (IoUring ring = IoUring.open(RingConfig.builder(64).sqe128().build())) {
 *     ring.nextSqe().prepUringCmd(fuseFd, CMD_REGISTER).addr(iov).len(2).userData(tag).cmd().set(...);
 *     ring.submitAndWait(1);
 *     ring.reap((userData, res, flags) -> ...);   // publishes the CQ head when it returns or throws
 * }
 * }</pre>
 *
 * <p><b>Lifetime.</b> {@link #close()} unregisters buffers and files, unmaps the rings and closes the fd, once.
 * Memory the ring maps is scoped to it: touching an {@link Sqe} after close throws instead of crashing.
 */
public final class IoUring implements AutoCloseable {
    /** {@code AT_FDCWD}: resolve relative paths against the working directory. */
    public static final int AT_FDCWD = Abi.AT_FDCWD;

    private final RingConfig config;
    private final RingMemory memory;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final Features features;
    private final Sqe cursor;
    private final MemorySegment errno;
    private final MemorySegment waitArg;    // io_uring_getevents_arg + its timespec, reused
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<AutoCloseable> registrations = new ArrayList<>();

    private IoUring(RingConfig config, RingMemory memory, Features features) {
        this.config = config;
        this.memory = memory;
        this.features = features;
        this.sq = memory.submissionQueue();
        this.cq = memory.completionQueue();
        this.cursor = new Sqe(sq.sqes(), config.sqe128());
        this.errno = memory.errnoState();
        this.waitArg = memory.arena().allocate(Abi.IO_URING_GETEVENTS_ARG.byteSize() + Abi.KERNEL_TIMESPEC.byteSize(), 8);
    }

    /** Sets up a ring with io_uring_setup, maps it and probes the supported opcodes. */
    public static IoUring open(RingConfig config) throws UringException {
        if (!IoUring.class.getModule().isNativeAccessEnabled()) {
            // JDK 25 would only warn, later JDKs refuse: say at once what to add
            throw new IllegalCallerException("the io_uring binding calls the kernel through the FFM API, and this JVM "
                    + "was started without permission for it: add --enable-native-access="
                    + (IoUring.class.getModule().isNamed() ? "dev.ringfuse.uring" : "ALL-UNNAMED") + " to the java command line");
        }
        RingMemory memory = RingMemory.setup(config);
        try {
            Features features = probe(memory);
            return new IoUring(config, memory, features);
        } catch (Throwable t) {
            memory.close();
            throw t;
        }
    }

    private static Features probe(RingMemory memory) throws UringException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment probe = arena.allocate(Abi.PROBE_OPS + Abi.PROBE_OP_SIZE * Abi.PROBE_MAX_OPS, 8);
            java.util.BitSet supported = new java.util.BitSet(Abi.PROBE_MAX_OPS);
            int r = Syscalls.ioUringRegister(memory.errnoState(), memory.fd(), Abi.IORING_REGISTER_PROBE,
                    probe.address(), Abi.PROBE_MAX_OPS);
            if (r < 0) throw new UringException("io_uring_register(PROBE)", -r);
            int lastOp = probe.get(java.lang.foreign.ValueLayout.JAVA_BYTE, Abi.PROBE_LAST_OP) & 0xff;
            for (int op = 0; op <= lastOp && op < Abi.PROBE_MAX_OPS; op++) {
                short flags = probe.get(java.lang.foreign.ValueLayout.JAVA_SHORT,
                        Abi.PROBE_OPS + op * Abi.PROBE_OP_SIZE + Abi.PROBE_OP_FLAGS);
                if ((flags & Abi.IORING_OP_SUPPORTED) != 0) supported.set(op);
            }
            return new Features(memory.featureBits(), lastOp, supported);
        }
    }

    /** @return the configuration the ring was set up with (as asked, before the kernel rounded sizes) */
    public RingConfig config() { return config; }

    /** @return what the running kernel offers: feature bits and the opcodes it supports, probed once at setup */
    public Features features() { return features; }

    /** The ring's file descriptor (for MSG_RING targets or registered-ring tricks). */
    public int fd() { return memory.fd(); }

    /** Actual SQ size (the kernel rounds up to a power of two). */
    public int sqEntries() { return sq.entries(); }

    /** Actual CQ size. */
    public int cqEntries() { return cq.entries(); }

    /** @return whether {@link #close()} has run; submitting, waiting and registering then throw {@link RingClosedException} */
    public boolean isClosed() { return closed.get(); }

    // ------------------------------------------------------------------ submission

    /**
     * A zeroed SQE to fill. If the SQ is full, first submits what is queued (without waiting for completions)
     * to make room. The returned cursor is valid until the next call.
     *
     * @throws UringException if making room needed an io_uring_enter that failed
     */
    public Sqe nextSqe() throws UringException {
        long off = sq.next();
        while (off < 0) {
            ensureOpen("nextSqe");
            if (config.sqPoll()) {
                enter(0, 0, Abi.IORING_ENTER_SQ_WAIT);       // wait for the poller to consume entries
            } else {
                submit();
            }
            off = sq.next();
        }
        return cursor.at(off);
    }

    /** Free SQ slots right now. */
    public int sqSpace() { return sq.space(); }

    /** SQEs prepared but not yet handed to the kernel. */
    public int unsubmitted() { return sq.unflushed(); }

    /**
     * Publishes prepared SQEs and tells the kernel (io_uring_enter without waiting). Also enters when the kernel
     * flags CQ overflow or pending task work so those completions become visible.
     *
     * @return the number of SQEs submitted
     */
    public int submit() throws UringException {
        return submitAndWait(0);
    }

    /**
     * Publishes prepared SQEs and waits until at least {@code waitNr} completions are in the CQ (processing task
     * work and flushing overflowed CQEs). Mirrors liburing's {@code io_uring_submit_and_wait}. A signal that
     * arrives after the submit ends the wait early: the call then returns the count submitted with fewer than
     * {@code waitNr} completions in the CQ, so a caller that needs a completion reaps and waits again.
     *
     * @return the number of SQEs submitted
     */
    public int submitAndWait(int waitNr) throws UringException {
        ensureOpen("io_uring_enter");
        int toSubmit = sq.flush();
        int flags = 0;
        if (config.sqPoll()) {
            if ((sq.flagsAfterFullFence() & Abi.IORING_SQ_NEED_WAKEUP) != 0) flags |= Abi.IORING_ENTER_SQ_WAKEUP;
        }
        if (waitNr > 0 || config.deferTaskrun() || cqNeedsFlush()) flags |= Abi.IORING_ENTER_GETEVENTS;
        boolean needEnter = waitNr > 0 || (flags & (Abi.IORING_ENTER_GETEVENTS | Abi.IORING_ENTER_SQ_WAKEUP)) != 0
                || (toSubmit > 0 && !config.sqPoll());
        if (!needEnter) return toSubmit;
        return enter(toSubmit, waitNr, flags);
    }

    /**
     * Waits up to {@code timeout} for {@code waitNr} completions (IORING_ENTER_EXT_ARG), submitting what is
     * prepared. Returns false on timeout.
     */
    public boolean submitAndWait(int waitNr, Duration timeout) throws UringException {
        ensureOpen("io_uring_enter");
        int toSubmit = sq.flush();
        MemorySegment ts = waitArg.asSlice(Abi.IO_URING_GETEVENTS_ARG.byteSize(), Abi.KERNEL_TIMESPEC.byteSize());
        ts.set(JAVA_LONG, 0, timeout.getSeconds());
        ts.set(JAVA_LONG, 8, timeout.getNano());
        waitArg.set(JAVA_LONG, 0, 0L);
        waitArg.set(JAVA_INT, 8, 0);
        waitArg.set(JAVA_INT, 12, 0);
        waitArg.set(JAVA_LONG, Abi.GETEVENTS_ARG_TS, ts.address());
        int flags = Abi.IORING_ENTER_GETEVENTS | Abi.IORING_ENTER_EXT_ARG;
        if (config.sqPoll() && (sq.flagsAfterFullFence() & Abi.IORING_SQ_NEED_WAKEUP) != 0)
            flags |= Abi.IORING_ENTER_SQ_WAKEUP;
        SubmitEvent event = SubmitEvent.TYPE.isEnabled() ? begin() : null;
        int r = Syscalls.ioUringEnter(errno, memory.fd(), toSubmit, waitNr, flags, waitArg.address(),
                Abi.IO_URING_GETEVENTS_ARG.byteSize());
        if (event != null) commit(event, toSubmit, waitNr, flags, r);
        if (r == -Errno.ETIME || r == -Errno.EINTR) return cq.ready() >= waitNr;
        if (r < 0) throw new UringException("io_uring_enter", -r);
        return true;
    }

    /** Runs pending task work and flushes overflowed CQEs without submitting or waiting. */
    public void getEvents() throws UringException {
        ensureOpen("io_uring_enter");
        enter(0, 0, Abi.IORING_ENTER_GETEVENTS);
    }

    private int enter(int toSubmit, int waitNr, int flags) throws UringException {
        while (true) {
            SubmitEvent event = SubmitEvent.TYPE.isEnabled() ? begin() : null;
            int r = Syscalls.ioUringEnter(errno, memory.fd(), toSubmit, waitNr, flags, 0L, 0L);
            if (event != null) commit(event, toSubmit, waitNr, flags, r);
            if (r >= 0) return r;
            if (r != -Errno.EINTR) throw new UringException("io_uring_enter", -r);
        }
    }

    private static SubmitEvent begin() {
        SubmitEvent e = new SubmitEvent();
        e.begin();
        return e;
    }

    private void commit(SubmitEvent e, int toSubmit, int waitNr, int flags, int result) {
        e.end();
        if (!e.shouldCommit()) return;
        e.ringFd = memory.fd();
        e.toSubmit = toSubmit;
        e.waitFor = waitNr;
        e.flags = flags;
        e.result = result;
        e.commit();
    }

    private boolean cqNeedsFlush() {
        return (sq.flags() & (Abi.IORING_SQ_CQ_OVERFLOW | Abi.IORING_SQ_TASKRUN)) != 0;
    }

    // ------------------------------------------------------------------ completion

    /** Completions waiting in the CQ. */
    public int cqReady() { return cq.ready(); }

    /** Whether the kernel holds completions that did not fit in the CQ (IORING_SQ_CQ_OVERFLOW). */
    public boolean cqOverflowPending() { return (sq.flags() & Abi.IORING_SQ_CQ_OVERFLOW) != 0; }

    /** The kernel's CQ overflow counter (completions that were dropped, or on NODROP kernels, deferred). */
    public int cqOverflowCount() { return cq.overflow(); }

    /**
     * Hands every completion now in the CQ to {@code handler} and publishes the new CQ head, also when the handler
     * throws (the throwing entry counts as consumed). Does not enter the kernel.
     *
     * @return the number of completions handled
     */
    public int reap(CompletionHandler handler) {
        return cq.reap(handler, Integer.MAX_VALUE);
    }

    /** Like {@link #reap(CompletionHandler)}, at most {@code max} entries. */
    public int reap(CompletionHandler handler, int max) {
        return cq.reap(handler, max);
    }

    /** The next completion copied into a record, or {@code null} if the CQ is empty. Allocates. */
    public Completion poll() {
        Completion[] out = new Completion[1];
        cq.reap((ud, res, fl) -> out[0] = new Completion(ud, res, fl), 1);
        return out[0];
    }

    // ------------------------------------------------------------------ registration

    /**
     * Registers {@code buffers} (native, each ≤ 1 GiB) for READ_FIXED/WRITE_FIXED; buffer {@code i} is
     * {@code buf_index i}. The pages are pinned and count against RLIMIT_MEMLOCK. Only one table per ring.
     */
    public RegisteredBuffers registerBuffers(MemorySegment... buffers) throws UringException {
        ensureOpen("io_uring_register(BUFFERS)");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment iov = arena.allocate(Abi.IOVEC, buffers.length);
            for (int i = 0; i < buffers.length; i++) {
                if (!buffers[i].isNative()) throw new IllegalArgumentException("buffer " + i + " is not native");
                iov.set(JAVA_LONG, i * Abi.IOVEC.byteSize() + Abi.IOVEC_BASE, buffers[i].address());
                iov.set(JAVA_LONG, i * Abi.IOVEC.byteSize() + Abi.IOVEC_LEN, buffers[i].byteSize());
            }
            register("io_uring_register(BUFFERS)", Abi.IORING_REGISTER_BUFFERS, iov.address(), buffers.length);
        }
        RegisteredBuffers r = new RegisteredBuffers(this, buffers.clone());
        registrations.add(r);
        return r;
    }

    /** Registers {@code fds}; then {@code sqe.fd(i).fixedFile()} refers to {@code fds[i]}. One table per ring. */
    public RegisteredFiles registerFiles(int... fds) throws UringException {
        ensureOpen("io_uring_register(FILES)");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment table = arena.allocate(JAVA_INT, Math.max(1, fds.length));
            for (int i = 0; i < fds.length; i++) table.setAtIndex(JAVA_INT, i, fds[i]);
            register("io_uring_register(FILES)", Abi.IORING_REGISTER_FILES, table.address(), fds.length);
        }
        RegisteredFiles r = new RegisteredFiles(this, fds.clone());
        registrations.add(r);
        return r;
    }

    /** Called once by a registration's close(); a closed ring already dropped everything. */
    void unregister(AutoCloseable registration, String what, int opcode) throws UringException {
        registrations.remove(registration);
        if (closed.get()) return;
        register(what, opcode, 0L, 0);
    }

    private void register(String what, int opcode, long arg, int nr) throws UringException {
        int r = Syscalls.ioUringRegister(errno, memory.fd(), opcode, arg, nr);
        if (r < 0) throw new UringException(what, -r);
    }

    private void ensureOpen(String operation) throws RingClosedException {
        if (closed.get()) throw new RingClosedException(operation);
    }

    /**
     * Closes the ring once: the kernel cancels outstanding requests and drops registrations; the mappings
     * become inaccessible. Further calls do nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        registrations.clear();
        memory.close();
    }

    @Override
    public String toString() {
        return "IoUring[fd=" + memory.fd() + ", sq=" + sq.entries() + ", cq=" + cq.entries()
                + ", flags=0x" + Integer.toHexString(config.setupFlags()) + (closed.get() ? ", closed" : "") + "]";
    }
}
