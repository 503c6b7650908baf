package dev.ringfuse.session;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Keeps the kernel's page cache from outliving an O_DIRECT write (core/DESIGN.md, "Page cache and direct
 * writes"). The kernel drops the cached pages of a direct write's range before sending it, and again after
 * it completes, but only when it completes synchronously: an asynchronous one (libaio, io_uring, any
 * O_DIRECT write with ASYNC_DIO) completes in fuse_aio_complete, which does not invalidate. A buffered read
 * that ran readahead in between brought the old bytes back into the cache, where they stay (KEEP_CACHE).
 *
 * <p>So before the reply to a direct WRITE leaves, the range is invalidated (NOTIFY_INVAL_INODE) when the
 * node may hold cached pages, that is when a buffered READ of it ever arrived. That is decided when the reply
 * is given, after the filesystem applied the write, not when the WRITE arrives: the first buffered READ of a
 * node could arrive after the WRITE, be served before the write is applied (another thread, another queue)
 * and leave the old bytes cached, with nothing marked yet when the WRITE was looked at (the zeros the pool's
 * stress read back once). A READ marked after the reply's check arrived after the write was applied (the
 * mark precedes its read, the check follows the write), so it reads the new bytes. The invalidation waits
 * for the folio locks of reads in flight, and those reads need transport threads: it therefore runs on its
 * own threads, never on the one that served the WRITE, and the reply follows it from there.
 *
 * <p>A held reply keeps what its request occupies: a background slot in the kernel (async direct I/O is
 * background), an io_uring ring entry or a /dev/fuse buffer. A readahead READ that cannot get one of those
 * holds folio locks the invalidation waits for. So only so many replies are held (fewer than half of
 * max_background, and two entries short of an io_uring queue's depth); past that the reply goes first and
 * the invalidation right after it: a narrower window instead of a deadlock.
 */
final class DirectWriteGuard {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    /** O_DIRECT in the file's f_flags (fuse_read_in.flags, fuse_write_in.flags): 040000 on x86_64, 0200000 on arm64. */
    static final int O_DIRECT = dev.ringfuse.uring.OpenFlags.O_DIRECT;
    /** fuse_write_in.write_flags: the write comes from the page cache (writeback). */
    static final int WRITE_CACHE = 1;
    private static final int BITS = 1 << 16;

    /** Nodes that may have pages in the page cache, hashed; a false positive costs one invalidation. */
    private final AtomicLongArray cached = new AtomicLongArray(BITS / 64);
    private final AtomicInteger held = new AtomicInteger();
    private final NotifierImpl notifier;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ringfuse-dio-inval");
        t.setDaemon(true);
        return t;
    });
    private volatile int maxHeld = 32;

    DirectWriteGuard(NotifierImpl notifier) {
        this.notifier = notifier;
    }

    /**
     * How many replies may wait for their invalidation at once; the others go first (see the class
     * comment). 0 (an io_uring queue of depth 2 or less): none is held.
     */
    void maxHeld(int replies) {
        maxHeld = Math.max(0, replies);
    }

    private static boolean direct(int fileFlags) {
        return (fileFlags & O_DIRECT) != 0;
    }

    /** A WRITE that bypasses the page cache (O_DIRECT, not writeback): its reply may need an invalidation. */
    static boolean direct(int fileFlags, int writeFlags) {
        return direct(fileFlags) && (writeFlags & WRITE_CACHE) == 0;
    }

    private static int slot(long nodeid) {
        return (int) ((nodeid * 0x9E3779B97F4A7C15L) >>> 48);
    }

    /** A READ of file data arrived: unless O_DIRECT, its pages enter the page cache. */
    void read(long nodeid, int fileFlags) {
        if (direct(fileFlags)) return;
        int s = slot(nodeid);
        long bit = 1L << (s & 63);
        if ((cached.get(s >>> 6) & bit) == 0) cached.getAndUpdate(s >>> 6, w -> w | bit);
    }

    /**
     * Whether the node may have pages cached, so that the reply to a direct WRITE of it must wait for an
     * invalidation of its range. Asked when the reply is given, after the write was applied (class comment).
     */
    boolean mayBeCached(long nodeid) {
        int s = slot(nodeid);
        return (cached.get(s >>> 6) & (1L << (s & 63))) != 0;
    }

    /** Invalidates the write's range, then sends the reply ({@code send}), from a guard thread. */
    void invalidateThenReply(InFlight f, Runnable send) {
        if (held.incrementAndGet() > maxHeld) {
            held.decrementAndGet();
            send.run();
            invalidateLater(f);
            return;
        }
        try {
            threads.execute(() -> {
                try {
                    invalidate(f);
                } finally {
                    held.decrementAndGet();
                    send.run();
                }
            });
        } catch (RuntimeException rejected) { // shut down: the session is ending
            held.decrementAndGet();
            send.run();
        }
    }

    /** Invalidates the write's range from a guard thread, after its reply went (a reply that could not be held). */
    void invalidateLater(InFlight f) {
        try {
            threads.execute(() -> invalidate(f));
        } catch (RuntimeException rejected) { // shut down: the session is ending
            // nothing left to keep coherent
        }
    }

    private void invalidate(InFlight f) {
        try {
            notifier.invalInode(f.invalNode, f.invalOffset, f.invalLength);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "invalidating after a direct write failed: " + e.getMessage());
        }
    }

    void end() {
        threads.shutdown();
    }
}
