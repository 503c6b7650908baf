package dev.ringfuse.transport.uring;

import dev.ringfuse.Errno;
import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.kernel.Off;
import dev.ringfuse.kernel.Opcode;
import dev.ringfuse.protocol.Decoder;
import dev.ringfuse.protocol.Header;
import dev.ringfuse.protocol.Request;
import dev.ringfuse.transport.AdaptiveSpin;
import dev.ringfuse.transport.KeepAwake;
import dev.ringfuse.transport.LatencyHint;
import dev.ringfuse.transport.RequestHandler;
import dev.ringfuse.sys.GuardedFd;
import dev.ringfuse.sys.IoFlusher;
import dev.ringfuse.sys.Libc;
import dev.ringfuse.uring.CompletionHandler;
import dev.ringfuse.uring.IoUring;
import dev.ringfuse.uring.RingConfig;
import dev.ringfuse.uring.Sqe;
import dev.ringfuse.uring.UringException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;
import static dev.ringfuse.protocol.Wire.u16;

/**
 * One FUSE-over-io_uring queue: a platform thread pinned to its CPU that owns an SQE128 ring, registers
 * {@code depth} entries for queue id {@code qid}, then loops: wait for completions, decode each delivered
 * request from its three segments, hand it to the session, and commit the replies (COMMIT_AND_FETCH, which
 * also re-arms the entry for the next request). Replies completed on other threads arrive through
 * {@link #commit} and an eventfd that the ring polls.
 *
 * <p>Everything but {@link #commit} and {@link #wake} runs on the queue's own thread.
 */
final class UringQueue implements Runnable {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    private static final long WAKE = -1L;
    /** What {@link #poll} returns when no completion came. */
    private static final long NONE = Long.MIN_VALUE;
    private static final int POLLIN = 1;
    private static final int EAGAIN = 11, EINTR = 4, ENOTCONN = 107, ECONNABORTED = 103, ENOENT = 2, ECANCELED = 125;

    private final int qid;
    private final int depth;
    /** How long to poll the completion queue before sleeping in io_uring_enter (adaptive, see AdaptiveSpin). */
    private final AdaptiveSpin spin;
    /** The process's CPU keepers (null with polling off, {@code -o spin=0}). */
    private final KeepAwake keepAwake;
    /**
     * The server CPU a sleep in io_uring_enter and the wake-up cost this thread, which a poll that catches the
     * next request saves ({@code -Dringfuse.spin.wakeCost=} nanoseconds). 5 µs: memfs at QD1 on an idle
     * 2-vCPU guest took 9.0 µs of server CPU per request sleeping and 5.0 µs polling without bound
     * (docs/bench/transports.md, "Polling on an idle machine").
     */
    static final long WAKE_COST = Long.getLong("ringfuse.spin.wakeCost", 5_000);
    private final int payloadSize;
    private final int devFd;
    private final RequestHandler session;
    private final UringTransport owner;
    private final ConcurrentLinkedQueue<UringEntry> remoteCommits = new ConcurrentLinkedQueue<>();
    final CountDownLatch setUp = new CountDownLatch(1);
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile Throwable setupFailure;
    private volatile boolean stopping;
    private volatile Thread thread;
    /** Wakes the loop for replies completed on other threads; guarded: a late wake after close hits nothing. */
    private volatile GuardedFd wakeFd;
    /** The eventfd counter value 1 (written by any thread) and the owner's drain buffer, in the queue's arena. */
    private MemorySegment one, drain;
    private Arena arena;
    private IoUring ring;
    private UringEntry[] entries;
    private boolean[] registered;
    private int live;
    /** When the batch of completions being reaped was taken in, and how many requests it held. */
    private long batchStart;
    private int batchServed;
    /** How long the poll that ended with the completions being reaped waited (0: none). */
    private long pollNanos;
    /** {@link #completed}, made once: a method reference in the loop allocated one object per batch. */
    private final CompletionHandler onCompletion = this::completed;

    UringQueue(int qid, int depth, long spinNanos, int payloadSize, int devFd, RequestHandler session, UringTransport owner) {
        this.qid = qid;
        this.depth = depth;
        this.spin = new AdaptiveSpin(spinNanos, WAKE_COST);
        this.keepAwake = spinNanos > 0 ? KeepAwake.get() : null;
        this.payloadSize = payloadSize;
        this.devFd = devFd;
        this.session = session;
        this.owner = owner;
    }

    Throwable setupFailure() { return setupFailure; }

    /** The queue's polling policy, for its counters. */
    AdaptiveSpin spin() { return spin; }

    /** After INIT has been answered: register the entries (a REGISTER before that gets EAGAIN). */
    void go() { go.countDown(); }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            setUpRing();
        } catch (Throwable t) {
            setupFailure = t;
            setUp.countDown();
            cleanUp();
            owner.queueEnded();
            return;
        }
        setUp.countDown();
        if (keepAwake != null) keepAwake.join();
        try {
            go.await();
            if (!stopping) {
                for (UringEntry e : entries) register(e);
                armWake();
                ring.submit();
                owner.queueRegistered();
                loop();
            }
        } catch (Throwable t) {
            if (!stopping) LOG.log(System.Logger.Level.ERROR, "io_uring queue " + qid + " failed", t);
        } finally {
            if (keepAwake != null) keepAwake.leave();
            cleanUp();
            owner.queueEnded();
        }
    }

    private void setUpRing() throws Exception {
        Libc.pinToCpu(qid);
        if (session.ioFlusher()) IoFlusher.markServingThread();
        arena = Arena.ofShared();
        // room for one SQE per entry plus the wake poll, twice over for commits queued while reaping
        ring = IoUring.open(RingConfig.builder(Integer.highestOneBit(depth * 2 + 1) << 1).sqe128()
                .cqEntries(Integer.highestOneBit(depth * 2 + 1) << 2).build());
        one = arena.allocate(ValueLayout.JAVA_LONG);
        one.set(ValueLayout.JAVA_LONG, 0, 1);
        drain = arena.allocate(ValueLayout.JAVA_LONG);
        wakeFd = new GuardedFd(Libc.eventfd(Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK));
        entries = new UringEntry[depth];
        registered = new boolean[depth];
        for (int i = 0; i < depth; i++) {
            MemorySegment header = arena.allocate(4096, 4096);
            MemorySegment payload = arena.allocate(payloadSize, 4096);
            MemorySegment iov = arena.allocate(32, 8);
            iov.set(ValueLayout.ADDRESS, 0, header);
            iov.set(ValueLayout.JAVA_LONG, 8, Off.SIZEOF_URING_REQ_HEADER);
            iov.set(ValueLayout.ADDRESS, 16, payload);
            iov.set(ValueLayout.JAVA_LONG, 24, payloadSize);
            entries[i] = new UringEntry(i, header, payload, iov, this);
        }
    }

    private void register(UringEntry e) throws UringException {
        Sqe sqe = ring.nextSqe().prepUringCmd(devFd, Fuse.URING_CMD_REGISTER).addr(e.iov).len(2).userData(e.index);
        cmd(sqe, 0);
        if (!registered[e.index]) {
            registered[e.index] = true;
            live++;
        }
    }

    private void cmd(Sqe sqe, long commitId) {
        MemorySegment c = sqe.cmd();
        i64(c, Off.URING_CMD_REQ_FLAGS, 0);
        i64(c, Off.URING_CMD_REQ_COMMIT_ID, commitId);
        u16(c, Off.URING_CMD_REQ_QID, qid);
    }

    private void armWake() throws UringException {
        ring.nextSqe().prepPollAdd(wakeFd.fd(), POLLIN).userData(WAKE);
    }

    private void loop() throws UringException {
        while (live > 0) {
            // one clock read per batch of completions, not per request: it ends the batch just served, decides
            // whether to poll, and stamps the next batch (whose requests' latency starts there)
            long now = System.nanoTime();
            if (batchServed > 0) {
                spin.served(now - batchStart, batchServed);
                batchServed = 0;
            }
            long caught = poll(now);
            if (caught == NONE) {
                ring.submitAndWait(1);
                caught = System.nanoTime();
            }
            batchStart = caught;
            ring.reap(onCompletion);
            if (keepAwake != null && batchServed > 0) {
                // where no keeper can spin (one CPU, a CPU quota, SCHED_IDLE refused), the latency request
                if (keepAwake.spinning()) keepAwake.arrived(batchStart); else LatencyHint.get().arrived(batchStart);
            }
            if (pollNanos > 0) {
                // a catch is a poll that brought a request, not a wake-up or a re-registration
                spin.polled(pollNanos, batchServed > 0);
                pollNanos = 0;
            }
            drainRemote();
        }
    }

    /**
     * Submits the pending commits and polls the completion queue for the budget {@link AdaptiveSpin} gives
     * (none once requests stopped coming, so an idle queue sleeps at once). A completion posted by the
     * kernel's task work interrupts the poll: the ring has no COOP_TASKRUN. Returns the time a completion
     * was seen, or {@link #NONE}; a poll that ended with one is reported after the reap ({@link #pollNanos}),
     * when it is known whether it brought a request.
     */
    private long poll(long start) throws UringException {
        long budget = spin.budget(start);
        if (budget == 0) return NONE;
        ring.submit();
        // the submit commits the replies (and wakes their applications): serving work, done without polling
        // too, so it is charged to serving; the poll is only the waiting after it
        long now = System.nanoTime();
        spin.served(now - start, 0);
        start = now;
        while (ring.cqReady() == 0) {
            Thread.onSpinWait();
            now = System.nanoTime();
            if (now - start > budget) {
                spin.polled(now - start, false);
                return NONE;
            }
        }
        pollNanos = now - start; // 0 when a completion was already there: no poll
        return now;
    }

    private void completed(long userData, int res, int flags) {
        if (userData == WAKE) {
            clearWake();
            if (stopping) {
                live = 0;
                return;
            }
            try {
                armWake();
            } catch (UringException e) {
                LOG.log(System.Logger.Level.ERROR, "io_uring queue " + qid + ": cannot re-arm its wake-up", e);
            }
            return;
        }
        UringEntry e = entries[(int) userData];
        if (res == 0) {
            serve(e);
        } else if (res == -EAGAIN || res == -EINTR) {
            try {
                register(e);
            } catch (UringException ex) {
                retire(e, ex.toString());
            }
        } else if (res == -ENOTCONN || res == -ECONNABORTED || res == -ECANCELED) {
            retire(e, null);
        } else if (res == -ENOENT) {
            // a commit for a request the kernel had already ended (interrupted, aborted): re-arm the entry
            try {
                register(e);
            } catch (UringException ex) {
                retire(e, ex.toString());
            }
        } else {
            retire(e, Errno.describe(-res));
        }
    }

    private void retire(UringEntry e, String why) {
        if (registered[e.index]) {
            registered[e.index] = false;
            live--;
        }
        if (why != null && !stopping) LOG.log(System.Logger.Level.WARNING, "io_uring queue " + qid + " entry " + e.index + ": " + why);
    }

    private void serve(UringEntry e) {
        e.received = batchStart;
        spin.arrived(batchStart);
        batchServed++;
        serveEntry(e);
    }

    private void serveEntry(UringEntry e) {
        MemorySegment h = e.header;
        long ent = Off.URING_REQ_HEADER_RING_ENT_IN_OUT;
        e.commitId = i64(h, ent + Off.URING_ENT_IN_OUT_COMMIT_ID);
        int payloadSz = i32(h, ent + Off.URING_ENT_IN_OUT_PAYLOAD_SZ);
        Decoder d = session.decoder();
        Header hdr = Decoder.header(h.asSlice(Off.URING_REQ_HEADER_IN_OUT, Off.SIZEOF_IN_HEADER));
        Opcode op = Opcode.of(hdr.opcode());
        int in = op == null ? 0 : d.inSize(op);
        MemorySegment payload = e.payload.asSlice(0, Math.min(payloadSz, payloadSize));
        MemorySegment opIn = h.asSlice(Off.URING_REQ_HEADER_OP_IN, in);
        if (op == Opcode.NOTIFY_REPLY && payload.byteSize() >= in) {
            // [observed on 6.18] the answer to a RETRIEVE carries its op struct in the payload, not in op_in
            opIn = payload.asSlice(0, in);
            payload = payload.asSlice(in);
        }
        Request r = d.decode(hdr, opIn, payload); // the header read once, for the opcode and for the request
        session.handle(r, e);
        if (op != null && op.noReply()) {
            // nobody answers it (NOTIFY_REPLY arrives here), but the entry only comes back with a commit
            e.send(hdr.unique(), 0, 0, false);
        }
    }

    /** Called by {@link UringEntry#send}: commit now if on this thread, else hand over and wake the loop. */
    void commit(UringEntry e) {
        if (Thread.currentThread() == thread) {
            try {
                Sqe sqe = ring.nextSqe().prepUringCmd(devFd, Fuse.URING_CMD_COMMIT_AND_FETCH).userData(e.index);
                cmd(sqe, e.commitId);
            } catch (UringException | IllegalStateException ex) {
                if (!stopping) LOG.log(System.Logger.Level.ERROR, "io_uring queue " + qid + ": commit failed", ex);
            }
        } else {
            remoteCommits.add(e);
            wake();
        }
    }

    private void drainRemote() {
        UringEntry e;
        while ((e = remoteCommits.poll()) != null) commit(e);
    }

    void wake() {
        GuardedFd w = wakeFd;
        if (w != null) w.write(one, 8);
    }

    private void clearWake() {
        Libc.read(wakeFd.fd(), drain, 8);
    }

    /** Asks the thread to end (it wakes, stops, and closing the ring cancels the registered commands). */
    void stop() {
        stopping = true;
        go.countDown();
        wake();
    }

    private void cleanUp() {
        if (ring != null) ring.close();
        if (wakeFd != null) wakeFd.close();
        if (arena != null) {
            try {
                arena.close();
            } catch (IllegalStateException inUse) {
                // a late reply is encoding into an entry right now: leave the buffers to the GC
            }
        }
    }
}
