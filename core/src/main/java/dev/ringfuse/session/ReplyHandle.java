package dev.ringfuse.session;

import dev.ringfuse.Errno;
import dev.ringfuse.lowlevel.*;
import dev.ringfuse.protocol.DirentPacker;
import dev.ringfuse.protocol.Encoder;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * The one reply handle class: every reply interface and the request's context in one object, so a
 * request costs one handle. Success methods claim the handle first (so two racing completions cannot
 * both write the buffer), then encode into the exchange's body, then send.
 *
 * <p>Who gives the request buffer back (core/DESIGN.md, "Exactly once"): a reply given during the callback on
 * the thread that runs it leaves the buffer to dispatch, which returns it to the transport once the callback
 * returned; any other reply (after the callback returned, or from another thread while it still runs) owns
 * the buffer and returns it itself after the send, and dispatch then leaves it alone. So no buffer goes back
 * while a reply is still encoded into it or written from it.
 */
final class ReplyHandle implements RequestContext, StatusReply, EntryReply, AttrReply, OpenReply, CreateReply,
        ReadReply, CountReply, ReadlinkReply, DirReply, DirPlusReply, StatfsReply, XattrReply, LockReply,
        LseekReply, BmapReply, PollReply, IoctlReply, StatxReply {

    /** The callback runs, no reply yet. */
    static final int RUNNING = 0;
    /** The callback runs, and another thread took the reply body (buffer(), add()) to fill it. */
    static final int LENT = 1;
    /** The callback returned without a reply: the reply owns the buffer. */
    static final int ASYNC = 2;
    /** Replied during the callback on its own thread: dispatch gives the buffer back. */
    static final int DONE = 3;
    /** Replied by a reply that owned the buffer (and gives it back after the send). */
    static final int SENT = 4;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ReplyHandle.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final InFlight flight;
    /** The thread that runs the callback (a transport thread); a reply from any other one owns the buffer. */
    private final Thread caller = Thread.currentThread();
    private final int uid, gid, pid, umask;
    /** The request's size limit: read size, readdir size, xattr buffer size. */
    private final int limit;
    private final boolean wideCount;
    @SuppressWarnings("unused") // via STATE
    private volatile int state;
    private DirentPacker packer;

    ReplyHandle(InFlight flight, int uid, int gid, int pid, int umask, int limit, boolean wideCount) {
        this.flight = flight;
        this.uid = uid;
        this.gid = gid;
        this.pid = pid;
        this.umask = umask;
        this.limit = limit;
        this.wideCount = wideCount;
    }

    // ---- lifecycle, used by the session ----

    /**
     * Called on the callback's thread once it returned (or threw and was answered): what the state was.
     * RUNNING or LENT: no reply yet, now ASYNC (the reply to come owns the buffer); SENT: a reply owns the
     * buffer already; DONE: replied during the callback, the buffer goes back to the transport.
     */
    int callbackReturned() {
        for (;;) {
            int s = state;
            if (s == DONE || s == SENT) return s;
            if (STATE.compareAndSet(this, s, ASYNC)) return s;
        }
    }

    InFlight flight() { return flight; }

    /** Claims the handle: DONE (the caller's dispatch gives the buffer back) or SENT (the reply owns it). */
    private int claim() {
        boolean onCaller = Thread.currentThread() == caller;
        for (;;) {
            int s = state;
            int next;
            if (s == RUNNING) {
                next = onCaller ? DONE : SENT;
            } else if (s == LENT && !onCaller) {
                next = SENT;
            } else if (s == ASYNC) {
                next = SENT;
            } else if (s == LENT) {
                throw new IllegalStateException("another thread is filling the reply to " + flight.op + " (unique "
                        + flight.unique + "): only one party may answer a request");
            } else {
                throw new IllegalStateException("reply already sent for " + flight.op + " (unique " + flight.unique + ")");
            }
            if (STATE.compareAndSet(this, s, next)) return next;
        }
    }

    /**
     * The reply body is handed out to be filled before the claim (buffer(), add()): refused once answered;
     * from another thread while the callback runs it is marked, so that the callback's thread can no longer
     * answer (and give the buffer back) under it.
     */
    private void lend() {
        for (;;) {
            int s = state;
            if (s == DONE || s == SENT) {
                throw new IllegalStateException("reply already sent for " + flight.op + " (unique " + flight.unique + ")");
            }
            if (s != RUNNING || Thread.currentThread() == caller || STATE.compareAndSet(this, RUNNING, LENT)) return;
        }
    }

    private void finish(int claimed, int error, int len) {
        try {
            flight.session.reply(flight, error, len, claimed == SENT);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private int claimed = RUNNING;

    /** Claims the handle and returns the body to encode into. */
    private MemorySegment body() {
        claimed = claim();
        return flight.exchange.body();
    }

    private void sendClaimed(int len) {
        finish(claimed, 0, len);
    }

    // ---- Reply ----

    @Override
    public void error(Errno errno) {
        error(errno.code());
    }

    @Override
    public void error(int errno) {
        if (errno <= 0 || errno >= 512) throw new IllegalArgumentException("errno out of range: " + errno);
        finish(claim(), -errno, 0);
    }

    @Override
    public boolean isDone() {
        int s = state;
        return s == DONE || s == SENT;
    }

    // ---- RequestContext ----

    @Override public int uid() { return uid; }
    @Override public int gid() { return gid; }
    @Override public int pid() { return pid; }
    @Override public int umask() { return umask; }
    @Override public boolean interrupted() { return flight.interrupted; }
    @Override public long unique() { return flight.unique; }

    // ---- success replies ----

    @Override
    public void ok() {
        body();
        sendClaimed(0);
    }

    @Override
    public void entry(Entry entry) {
        if (entry.attr() == null && entry.nodeid() != 0) throw new IllegalArgumentException("entry without attributes");
        MemorySegment b = body();
        sendClaimed(Encoder.entry(b, 0, entry));
    }

    @Override
    public void negative(long timeoutNanos) {
        MemorySegment b = body();
        sendClaimed(Encoder.entry(b, 0, new Entry(0, 0, null, timeoutNanos, 0)));
    }

    @Override
    public void attr(Attr attr, long timeoutNanos) {
        MemorySegment b = body();
        sendClaimed(Encoder.attrOut(b, attr, timeoutNanos));
    }

    @Override
    public void open(long fh, int openFlags) {
        MemorySegment b = body();
        sendClaimed(Encoder.openOut(b, 0, fh, openFlags, 0));
    }

    @Override
    public void open(long fh, int openFlags, int backingId) {
        MemorySegment b = body();
        sendClaimed(Encoder.openOut(b, 0, fh, openFlags | OpenFlags.PASSTHROUGH, backingId));
    }

    @Override
    public void created(Entry entry, long fh, int openFlags) {
        created(entry, fh, openFlags, 0, false);
    }

    @Override
    public void created(Entry entry, long fh, int openFlags, int backingId) {
        created(entry, fh, openFlags, backingId, true);
    }

    private void created(Entry entry, long fh, int openFlags, int backingId, boolean passthrough) {
        MemorySegment b = body();
        int n = Encoder.entry(b, 0, entry);
        n += Encoder.openOut(b, n, fh, passthrough ? openFlags | OpenFlags.PASSTHROUGH : openFlags, backingId);
        sendClaimed(n);
    }

    @Override
    public void data(MemorySegment data) {
        MemorySegment b = body();
        int n = (int) Math.min(data.byteSize(), limit);
        MemorySegment.copy(data, 0, b, 0, n);
        sendClaimed(n);
    }

    @Override
    public void data(byte[] data, int off, int len) {
        data(MemorySegment.ofArray(data).asSlice(off, len));
    }

    @Override
    public void data(ByteBuffer data) {
        data(MemorySegment.ofBuffer(data));
    }

    @Override
    public MemorySegment buffer() {
        lend();
        return flight.exchange.body().asSlice(0, limit);
    }

    @Override
    public void commit(int length) {
        if (length < 0 || length > limit) throw new IllegalArgumentException("commit of " + length + " bytes, limit " + limit);
        body();
        sendClaimed(length);
    }

    @Override
    public void count(long count) {
        MemorySegment b = body();
        sendClaimed(wideCount ? Encoder.u64(b, count) : Encoder.writeOut(b, (int) Math.min(count, 0xffff_f000L)));
    }

    @Override
    public void target(String target) {
        target(dev.ringfuse.FileNames.encode(target));
    }

    @Override
    public void target(byte[] target) {
        MemorySegment b = body();
        MemorySegment.copy(MemorySegment.ofArray(target), 0, b, 0, target.length);
        sendClaimed(target.length);
    }

    private DirentPacker packer(boolean plus) {
        if (packer == null) packer = new DirentPacker(flight.exchange.body(), limit, plus);
        return packer;
    }

    @Override
    public boolean add(String name, long ino, int type, long nextOffset) {
        lend();
        return packer(false).add(name, ino, type, nextOffset, null);
    }

    @Override
    public boolean add(String name, Entry entry, long nextOffset) {
        lend();
        int mode = entry.attr() == null ? 0 : entry.attr().mode();
        long ino = entry.attr() == null ? entry.nodeid() : entry.attr().ino();
        return packer(true).add(name, ino, mode, nextOffset, entry);
    }

    @Override
    public void send() {
        int n = packer == null ? 0 : packer.size();
        body();
        sendClaimed(n);
    }

    @Override
    public void statfs(StatFs statfs) {
        MemorySegment b = body();
        sendClaimed(Encoder.statfs(b, statfs));
    }

    @Override
    public void value(byte[] value) {
        if (limit == 0) {
            MemorySegment b = body();
            sendClaimed(Encoder.xattrSize(b, value.length));
        } else if (value.length > limit) {
            error(Errno.ERANGE);
        } else {
            MemorySegment b = body();
            MemorySegment.copy(MemorySegment.ofArray(value), 0, b, 0, value.length);
            sendClaimed(value.length);
        }
    }

    @Override
    public void names(Collection<String> names) {
        int total = 0;
        for (String n : names) total += dev.ringfuse.FileNames.encodedLength(n) + 1;
        byte[] all = new byte[total];
        int at = 0;
        for (String n : names) {
            byte[] b = dev.ringfuse.FileNames.encode(n);
            System.arraycopy(b, 0, all, at, b.length);
            at += b.length + 1;
        }
        value(all);
    }

    @Override
    public void lock(FileLock lock) {
        MemorySegment b = body();
        sendClaimed(Encoder.lkOut(b, lock));
    }

    @Override
    public void offset(long offset) {
        MemorySegment b = body();
        sendClaimed(Encoder.u64(b, offset));
    }

    @Override
    public void block(long block) {
        MemorySegment b = body();
        sendClaimed(Encoder.u64(b, block));
    }

    @Override
    public void revents(int revents) {
        MemorySegment b = body();
        sendClaimed(Encoder.pollOut(b, revents));
    }

    @Override
    public void result(int result, byte[] out) {
        if (out.length > limit) throw new IllegalArgumentException("ioctl output of " + out.length + " bytes, limit " + limit);
        MemorySegment b = body();
        sendClaimed(Encoder.ioctlOut(b, result, out));
    }

    @Override
    public void statx(Attr attr, int mask, long timeoutNanos) {
        MemorySegment b = body();
        sendClaimed(Encoder.statxOut(b, attr, mask, timeoutNanos));
    }

    @Override
    public String toString() {
        return flight.op + " unique " + flight.unique;
    }
}
