package dev.ringfuse;

import dev.ringfuse.lowlevel.*;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A filesystem whose READ and GETATTR callbacks hand their reply to another thread and return (or throw) at
 * the worst moment: as soon as that thread has begun the reply, so the callback's return races the reply's
 * encoding and write. Two files: "pattern", read-only, whose bytes are a function of their offset, and
 * "scratch", whose WRITEs are applied in the callback (their data is read from the request buffer there),
 * so a request buffer reused while a reply is still written into it shows as wrong bytes in either file.
 * Both are opened with DIRECT_IO and every timeout is 0: each read, write and fstat reaches the server.
 */
final class HandOffFs implements LowLevelFileSystem {
    static final long PATTERN = 2, SCRATCH = 3;
    static final int PATTERN_SIZE = 8 << 20, SCRATCH_SIZE = 4 << 20;
    static final byte[] PATTERN_BYTES = new byte[PATTERN_SIZE];

    static {
        for (int i = 0; i < PATTERN_SIZE; i++) PATTERN_BYTES[i] = (byte) (i * 31 + (i >>> 9) * 7 + (i >>> 17));
    }

    private static final MemorySegment PATTERN_SEGMENT = MemorySegment.ofArray(PATTERN_BYTES);

    /** How a READ of "pattern" is answered. */
    enum Mode {
        /** Another thread answers with data(); the callback returns once it has begun. */
        DATA_FROM_OTHER_THREAD,
        /** Another thread fills buffer() and commits; the callback returns once it has begun filling. */
        BUFFER_FROM_OTHER_THREAD,
        /** Another thread answers with data(); the callback throws once it has begun (EIO or the data). */
        THROW_AFTER_DATA_HANDED_OVER,
        /** Another thread fills buffer(); the callback throws once it has begun: the filling thread answers. */
        THROW_WHILE_OTHER_THREAD_FILLS
    }

    private final Mode mode;
    private final byte[] scratch = new byte[SCRATCH_SIZE];
    private final ExecutorService repliers = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "hand-off-replier");
        t.setDaemon(true);
        return t;
    });
    /** Replies the other thread could not give because the handle was already answered (IllegalStateException). */
    final AtomicLong refused = new AtomicLong();
    /** The first thing else the other thread got thrown at it: a bug. */
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final AtomicLong handedOver = new AtomicLong();

    HandOffFs(Mode mode) {
        this.mode = mode;
    }

    void close() {
        repliers.shutdownNow();
    }

    private static Attr attr(long ino) {
        long now = 1_700_000_000L;
        return switch ((int) ino) {
            case 1 -> new Attr(ino, Attr.S_IFDIR | 0755, 2, 0, 0, 0, 0, 0, 4096, now, 0, now, 0, now, 0, now, 0);
            case 2 -> new Attr(ino, Attr.S_IFREG | 0444, 1, 0, 0, 0, PATTERN_SIZE, PATTERN_SIZE / 512, 4096, now, 0, now, 0, now, 0, now, 0);
            default -> new Attr(ino, Attr.S_IFREG | 0666, 1, 0, 0, 0, SCRATCH_SIZE, SCRATCH_SIZE / 512, 4096, now, 0, now, 0, now, 0, now, 0);
        };
    }

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        long ino = parent != ROOT_ID ? 0 : name.equals("pattern") ? PATTERN : name.equals("scratch") ? SCRATCH : 0;
        if (ino == 0) reply.error(Errno.ENOENT);
        else reply.entry(new Entry(ino, 1, attr(ino), 0, 0));
    }

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        if (nodeid < ROOT_ID || nodeid > SCRATCH) {
            reply.error(Errno.ENOENT);
            return;
        }
        Begun begun = new Begun();
        repliers.execute(() -> {
            begun.now = true;
            reply(() -> reply.attr(attr(nodeid), 0));
        });
        begun.await();
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        reply.open(nodeid, OpenFlags.DIRECT_IO);
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        if (nodeid == SCRATCH) {
            int n = (int) Math.max(0, Math.min(size, SCRATCH_SIZE - offset));
            byte[] copy = new byte[n];
            synchronized (scratch) {
                System.arraycopy(scratch, (int) offset, copy, 0, n);
            }
            reply.data(copy, 0, n);
            return;
        }
        int n = (int) Math.max(0, Math.min(size, PATTERN_SIZE - offset));
        Begun begun = new Begun();
        handedOver.incrementAndGet();
        boolean fill = mode == Mode.BUFFER_FROM_OTHER_THREAD || mode == Mode.THROW_WHILE_OTHER_THREAD_FILLS;
        repliers.execute(() -> reply(() -> {
            if (fill) {
                MemorySegment b = reply.buffer();
                begun.now = true;
                MemorySegment.copy(PATTERN_SEGMENT, offset, b, 0, n);
                reply.commit(n);
            } else {
                begun.now = true;
                reply.data(PATTERN_SEGMENT.asSlice(offset, n));
            }
        }));
        begun.await();
        if (mode == Mode.THROW_AFTER_DATA_HANDED_OVER || mode == Mode.THROW_WHILE_OTHER_THREAD_FILLS) {
            throw new FuseException(Errno.EIO, "thrown after handing the reply to another thread");
        }
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags, CountReply reply) {
        if (nodeid != SCRATCH || offset + data.byteSize() > SCRATCH_SIZE) {
            reply.error(Errno.EFBIG);
            return;
        }
        synchronized (scratch) {
            MemorySegment.copy(data, 0, MemorySegment.ofArray(scratch), offset, data.byteSize());
        }
        reply.count(data.byteSize());
    }

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        reply.open(0, 0);
    }

    private void reply(Runnable r) {
        try {
            r.run();
        } catch (IllegalStateException alreadyAnswered) {
            refused.incrementAndGet();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    /** Set by the replying thread once it has begun the reply; the callback waits for it and returns. */
    private static final class Begun {
        volatile boolean now;

        void await() {
            while (!now) Thread.yield();
        }
    }
}
