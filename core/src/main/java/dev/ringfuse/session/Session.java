package dev.ringfuse.session;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.MountOptions;
import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.kernel.Off;
import dev.ringfuse.kernel.Opcode;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.protocol.Decoder;
import dev.ringfuse.protocol.Request;
import dev.ringfuse.stats.RequestStats;
import dev.ringfuse.sys.GuardedFd;
import dev.ringfuse.transport.Exchange;
import dev.ringfuse.transport.RequestHandler;
import java.lang.ref.Cleaner;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One FUSE connection's protocol state: INIT, the decoder it configures, the in-flight table, and the
 * answer to every request the filesystem does not see (INIT, DESTROY, FORGET, INTERRUPT, NOTIFY_REPLY,
 * malformed and unknown requests). Transports call {@link #handle} from any number of threads.
 */
public final class Session implements RequestHandler {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    private static final Cleaner CLEANER = Cleaner.create();
    /** One DEBUG line per answered request (like libfuse's -d); `ringfuse mount -v` turns it on. */
    private static final System.Logger TRACE = System.getLogger("dev.ringfuse.request");

    private final LowLevelFileSystem fs;
    private final MountOptions options;
    private final NotifierImpl notifier;
    /** In-flight requests, found by unique for INTERRUPT; holds InFlight records, never reply handles. */
    private final InFlightTable inflight = new InFlightTable();
    private final CountDownLatch initDone = new CountDownLatch(1);
    private final Set<Class<?>> loggedFailures = ConcurrentHashMap.newKeySet();
    private volatile Decoder decoder = new Decoder(false);
    private volatile Negotiation negotiation;
    private volatile boolean ended;
    private volatile boolean destroyed;
    /** Held while the filesystem's destroy runs (see {@link #destroy}). */
    private final Object destroyLock = new Object();
    private boolean destroying;   // guarded by destroyLock
    private final InitHooks hooks;
    private volatile Throwable initFailure;
    /** The mount point, for events; set by the server once known. */
    volatile String mountpoint = "";
    /** Answered filesystem requests by opcode (including EIO for dropped handles), for `ringfuse stats`. */
    final RequestStats stats = new RequestStats(OPCODE_NAMES);
    private static final String[] OPCODE_NAMES = java.util.Arrays.stream(Opcode.values()).map(Enum::name)
            .toArray(String[]::new);
    private final DirectWriteGuard directWrites;

    public Session(LowLevelFileSystem fs, MountOptions options, GuardedFd dev, InitHooks hooks) {
        this.fs = fs;
        this.options = options;
        this.notifier = new NotifierImpl(dev);
        this.hooks = hooks;
        this.directWrites = new DirectWriteGuard(notifier);
    }

    /** Why INIT was refused, or null. */
    public Throwable initFailure() { return initFailure; }

    @Override
    public Decoder decoder() { return decoder; }

    @Override
    public boolean ioFlusher() { return options.ioFlusher(); }

    public MountOptions options() { return options; }

    /** Waits for INIT to be answered; returns false on timeout. */
    public boolean awaitInit(long timeout, TimeUnit unit) throws InterruptedException {
        return initDone.await(timeout, unit);
    }

    /** Whether INIT completed. */
    public boolean initialized() { return initDone.getCount() == 0; }

    /** Whether {@code c} was negotiated (false before INIT). */
    public boolean granted(Capability c) {
        Negotiation n = negotiation;
        return n != null && n.granted(c);
    }

    /** The negotiated max_write (the configured one before INIT). */
    public int maxWrite() {
        Negotiation n = negotiation;
        return n == null ? options.maxWrite() : n.maxWrite();
    }

    /**
     * Handles one decoded request whose buffer is {@code ex}. Returns true if the request is still pending
     * (its reply will come later and will recycle {@code ex}); false if {@code ex} is free again.
     */
    @Override
    public boolean handle(Request r, Exchange ex) {
        switch (r) {
            case Request.Init i -> init(i, ex);
            case Request.Forget f -> forget(f.nodeid(), f.nlookup());
            case Request.BatchForget b -> {
                for (int k = 0; k < b.nodeids().length; k++) forget(b.nodeids()[k], b.nlookups()[k]);
            }
            case Request.Interrupt i -> interrupt(i, ex);
            case Request.NotifyReply n -> notifier.retrieved(n);
            case Request.Destroy d -> {
                destroy();
                ex.send(d.unique(), 0, 0, false);
            }
            case Request.Malformed m -> malformed(m, ex);
            case Request.Unsupported u -> ex.send(u.unique(), -Errno.ENOSYS.code(), 0, false);
            default -> {
                return dispatch(r, ex);
            }
        }
        return false;
    }

    private boolean dispatch(Request r, Exchange ex) {
        Opcode op = Opcode.of(r.header().opcode());
        InFlight f = new InFlight(this, inflight.stripe(), r.unique(), op, ex);
        f.start = ex.received(); // the transport's stamp: no clock read of our own
        f.nodeid = r.nodeid();
        f.bytesIn = r.header().len();
        if (RequestEvent.TYPE.isEnabled()) f.event = beginEvent(f, ex);
        ReplyHandle h = new ReplyHandle(f, r.header().uid(), r.header().gid(), r.header().pid(), Dispatch.umask(r),
                Dispatch.limit(r), op == Opcode.COPY_FILE_RANGE_64);
        switch (r) {
            case Request.Read q when q.kind() == Request.Read.Kind.FILE -> directWrites.read(q.nodeid(), q.flags());
            // whether its reply waits for an invalidation is decided at the reply, once the write is applied:
            // a buffered READ that arrives meanwhile may be served first and cache the old bytes
            case Request.Write q when DirectWriteGuard.direct(q.flags(), q.writeFlags()) ->
                    f.directWrite(q.nodeid(), q.offset(), q.data().byteSize());
            default -> { }
        }
        inflight.add(f);
        try {
            Dispatch.call(fs, r, h);
        } catch (FuseException e) {
            answerIfOpen(h, e.errno().code(), null);
        } catch (Throwable t) {
            answerIfOpen(h, Errno.EIO.code(), t);
        }
        return switch (h.callbackReturned()) {
            // a reply given during the callback on this thread: a direct WRITE's reply held for an invalidation
            // leaves later, from a guard thread (see reply), and keeps the buffer; any other goes back now
            case ReplyHandle.DONE -> f.held;
            // answered by a reply that owns the buffer and gives it back itself, perhaps already
            case ReplyHandle.SENT -> true;
            default -> { // no reply yet: the one to come owns the buffer
                CLEANER.register(h, f);
                yield true;
            }
        };
    }

    private void answerIfOpen(ReplyHandle h, int errno, Throwable t) {
        String answer = "answered EIO";
        if (h.isDone()) {
            answer = "its reply had been given";
        } else {
            try {
                h.error(errno);
            } catch (IllegalStateException raced) {
                // completed by another thread meanwhile, or another thread is filling the reply's body (buffer(),
                // add()): that reply stands, or the Cleaner answers if its handle is dropped
                answer = "left the reply to the thread that has it";
            }
        }
        if (t != null) logFailure(h, t, answer);
    }

    private void logFailure(ReplyHandle h, Throwable t, String answer) {
        if (t instanceof VirtualMachineError vme && !(t instanceof StackOverflowError)) {
            LOG.log(System.Logger.Level.ERROR, "filesystem callback for " + h + " failed: " + t);
        } else if (loggedFailures.add(t.getClass())) {
            LOG.log(System.Logger.Level.WARNING, "filesystem callback for " + h + " threw; " + answer, t);
        } else {
            LOG.log(System.Logger.Level.WARNING, "filesystem callback for " + h + " threw " + t + "; " + answer);
        }
    }

    /** Called by a reply handle: the one reply of {@code f}. */
    void reply(InFlight f, int error, int len, boolean recycle) {
        f.done = true;
        inflight.remove(f);
        if (f.invalLength > 0 && error == 0 && !ended && directWrites.mayBeCached(f.invalNode)) {
            // the write is applied now: a READ not marked yet arrived after it and reads the new bytes. A reply
            // that does not own the buffer was given during the callback on its thread, whose dispatch reads
            // held next and leaves the buffer to the guard
            if (!recycle) f.held = true;
            directWrites.invalidateThenReply(f, () -> {
                f.exchange.send(f.unique, error, len, true);
                replied(f, error, len);
            });
            return;
        }
        f.exchange.send(f.unique, error, len, recycle);
        replied(f, error, len);
    }

    private void trace(InFlight f, int error, int bytesOut) {
        TRACE.log(System.Logger.Level.DEBUG, String.format(java.util.Locale.ROOT,
                "%s unique %d node %d in %d -> %s out %d in %.3f ms", f.op, f.unique, f.nodeid, f.bytesIn,
                error == 0 ? "ok" : Errno.describe(-error), bytesOut, (System.nanoTime() - f.start) / 1e6));
    }

    private RequestEvent beginEvent(InFlight f, Exchange ex) {
        RequestEvent e = new RequestEvent();
        e.begin();
        e.mountpoint = mountpoint;
        e.opcode = f.op == null ? "?" : f.op.name();
        e.nodeId = f.nodeid;
        e.unique = f.unique;
        e.bytesIn = f.bytesIn;
        e.transport = ex.transport();
        e.queue = Thread.currentThread().getName();
        return e;
    }

    /** After the reply went to the transport: statistics, and the JFR event if one was begun. */
    private void replied(InFlight f, int error, int len) {
        int bytesOut = Off.SIZEOF_OUT_HEADER + (error == 0 ? len : 0);
        stats.answered(f.op == null ? 0 : f.op.ordinal(), System.nanoTime() - f.start, -error, f.bytesIn, bytesOut);
        if (TRACE.isLoggable(System.Logger.Level.DEBUG)) trace(f, error, bytesOut);
        RequestEvent e = f.event;
        if (e != null) {
            e.end();
            if (e.shouldCommit()) {
                e.errno = -error;
                e.bytesOut = bytesOut;
                e.commit();
            }
        }
    }

    /** Called by the Cleaner for a handle dropped without a reply. */
    void abandoned(InFlight f) {
        inflight.remove(f);
        if (ended) {
            f.exchange.recycle();
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "reply handle for " + f.op + " (unique " + f.unique
                + ") was dropped without a reply; answered EIO");
        f.exchange.send(f.unique, -Errno.EIO.code(), 0, true);
        replied(f, -Errno.EIO.code(), 0);
    }

    private void forget(long nodeid, long nlookup) {
        try {
            fs.forget(nodeid, nlookup);
        } catch (Throwable t) {
            if (loggedFailures.add(t.getClass())) LOG.log(System.Logger.Level.WARNING, "forget threw", t);
        }
    }

    private void interrupt(Request.Interrupt i, Exchange ex) {
        InFlight target = inflight.find(i.targetUnique());
        if (target != null) {
            target.interrupted = true;
        } else {
            // not read yet (or already answered, in which case the kernel drops the interrupt): ask again later
            ex.send(i.unique(), -Errno.EAGAIN.code(), 0, false);
        }
    }

    private void malformed(Request.Malformed m, Exchange ex) {
        LOG.log(System.Logger.Level.WARNING, "malformed request (unique " + m.unique() + "): " + m.reason());
        Opcode op = Opcode.of(m.header().opcode());
        if (m.unique() != 0 && (op == null || !op.noReply())) ex.send(m.unique(), -m.errno(), 0, false);
    }

    private void init(Request.Init i, Exchange ex) {
        if (i.major() != Fuse.KERNEL_VERSION) {
            if (i.major() > Fuse.KERNEL_VERSION) {
                // the kernel will send a second INIT at our major
                Negotiation n = new Negotiation(0, 0, options.maxWrite(), notifier);
                ex.send(i.unique(), 0, n.encode(ex.body(), 0), false);
            } else {
                LOG.log(System.Logger.Level.ERROR, "kernel FUSE major " + i.major() + " is not supported");
                ex.send(i.unique(), -71, 0, false);
            }
            return;
        }
        Negotiation n = new Negotiation(i.minor(), i.flags(), options.maxWrite(), notifier)
                .defaultPermissions(options.defaultPermissions());
        InitEvent event = new InitEvent();
        event.begin();
        try {
            fs.init(n);
            hooks.beforeReply(n);
        } catch (Throwable t) {
            initFailure = t;
            ex.send(i.unique(), -Errno.EIO.code(), 0, false);
            commit(event, i, n, String.valueOf(t.getMessage() == null ? t : t.getMessage()));
            initDone.countDown();
            return;
        }
        decoder = new Decoder(n.granted(Capability.SETXATTR_EXT));
        // replies held for an invalidation keep their buffer or ring entry: leave the transport enough free ones
        // for the reads the invalidation waits for (an io_uring queue of depth d delivers at most d at once)
        directWrites.maxHeld(Math.min(n.maxBackground() / 2, n.granted(Capability.OVER_IO_URING)
                ? options.uringDepth() - 2 : options.threads() * 2 + 8));
        negotiation = n;
        ex.send(i.unique(), 0, n.encode(ex.body(), i.maxReadahead()), false);
        hooks.afterReply(n);
        commit(event, i, n, "");
        initDone.countDown();
    }

    private void commit(InitEvent e, Request.Init i, Negotiation n, String error) {
        e.end();
        if (!e.shouldCommit()) return;
        e.mountpoint = mountpoint;
        e.kernelMajor = i.major();
        e.kernelMinor = i.minor();
        e.offered = n.offered().toString();
        java.util.Set<Capability> granted = java.util.EnumSet.noneOf(Capability.class);
        for (Capability c : Capability.values()) if (n.granted(c)) granted.add(c);
        e.granted = granted.toString();
        e.maxWrite = n.maxWrite();
        e.maxReadahead = i.maxReadahead();
        e.error = error;
        e.commit();
    }

    /** Ends the session: no further replies; the filesystem's destroy runs once. */
    public void end() {
        ended = true;
        destroy();
        notifier.end();
        directWrites.end();
    }

    /**
     * Runs the filesystem's destroy once. A second caller (Mount.close racing the transport's own end after
     * an unmount) waits until it has run: callers of close may then reuse what the filesystem held (an
     * image it had claimed, a port, a file).
     */
    private void destroy() {
        if (destroyed) return;
        synchronized (destroyLock) {
            if (destroyed || destroying) return;   // destroying: called again from within fs.destroy
            destroying = true;
            try {
                if (initialized()) fs.destroy();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "filesystem destroy threw", t);
            } finally {
                destroyed = true;
            }
        }
    }

    /** The notifier of this connection. */
    public NotifierImpl notifier() { return notifier; }

    /** Requests currently in flight. */
    public int inFlight() { return inflight.size(); }
}
