package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.MosBlock;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.Healing;
import dev.ringfuse.pool.io.MirrorDevice;
import dev.ringfuse.pool.space.SpaceMap;
import dev.ringfuse.pool.tree.BTree;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * `pool scrub` and the resilver of `pool replace` (DESIGN.md, "Scrub and resilver"): a walk of every block of
 * the newest committed txg — MOS, dataset directory, every filesystem's, snapshot's and clone's tree with its
 * file blocks (each shared block once), the space log — done without the pool lock, so that mounted datasets
 * stay busy meanwhile. The blocks of that txg keep their places for the walk's duration: the allocator holds
 * every place freed meanwhile out of reuse ({@link dev.ringfuse.pool.space.Allocator#hold}). File blocks are
 * visited up to {@link #PARALLEL} at a time. One scrub or resilver per pool at a time.
 */
public final class Scrub {
    static final int PARALLEL = Integer.getInteger("pool.scrub.parallel", 32);
    private static final int MAX_ERRORS = 100;

    private Scrub() {}

    /** What a scrub or resilver did: blocks visited, bytes read, rewritten (repaired or copied), blocks lost. */
    public record Report(long blocks, long scanned, long repaired, long unrepairable, long copied, List<String> errors,
                         long millis) {}

    /** Does one block's work and returns the logical bytes of a metadata block (null: do not descend). */
    interface BlockWork {
        byte[] visit(BlockPointer bp, Healing.Counts c) throws IOException;
    }

    /** Bytes a scrub will read: every vdev's allocated bytes times its readable sides. */
    public static long estimate(Pool pool) {
        var a = pool.io().allocator();
        long total = 0;
        for (int v = 0; v < a.devices(); v++) {
            SpaceMap m = a.map(v);
            long used = m.capacity() - m.freeBytes();
            int sides = 1;
            if (pool.io().device(v) instanceof MirrorDevice md) {
                sides = 0;
                for (int s = 0; s < md.sides(); s++) if (md.state(s) == MirrorDevice.State.ONLINE) sides++;
            }
            total += used * Math.max(1, sides);
        }
        return Math.max(1, total);
    }

    /** Reads every copy of every block on every side and rewrites bad copies from good ones. */
    public static Report scrub(Pool pool, LongConsumer progress) throws IOException {
        BlockIo io = pool.io();
        return maintain(pool, "scrub", progress, () -> { }, (bp, c) -> Healing.scrub(io, bp, c), r -> { });
    }

    /**
     * Runs {@code work} on every block of the committed state reached after {@code before} ran, then
     * {@code after} with the report: until that returns, no other scrub or resilver starts (a replace switches
     * its mirror's sides there).
     */
    static Report maintain(Pool pool, String what, LongConsumer progress, Step before, BlockWork work, Finish after)
            throws IOException {
        if (!pool.maintenance.compareAndSet(null, what)) {
            throw new IOException("pool '" + pool.name() + "': a " + pool.maintenance.get() + " is running");
        }
        long t0 = System.nanoTime();
        BlockIo io = pool.io();
        io.allocator().hold();
        try {
            before.run();
            pool.commit(); // recent writes are included
            Healing.Counts c = walk(pool, pool.mosPointer(), work, progress == null ? x -> { } : progress);
            io.flush(); // repairs are durable when the command returns
            Report r = new Report(c.blocks, c.scanned, c.repaired, c.unrepairable, c.copied,
                    List.copyOf(c.errors.subList(0, Math.min(MAX_ERRORS, c.errors.size()))), (System.nanoTime() - t0) / 1_000_000);
            after.accept(r);
            return r;
        } finally {
            io.allocator().release();
            pool.maintenance.set(null);
        }
    }

    interface Step {
        void run() throws IOException;
    }

    interface Finish {
        void accept(Report r) throws IOException;
    }

    /** The walk: metadata on this thread (it is descended into), file blocks on virtual threads. */
    private static Healing.Counts walk(Pool pool, BlockPointer mosBp, BlockWork work, LongConsumer progress) throws IOException {
        BlockIo io = pool.io();
        Set<Long> seen = new HashSet<>();
        Healing.Counts total = new Healing.Counts();
        Healing.Counts meta = new Healing.Counts();
        AtomicLong done = new AtomicLong();
        AtomicReference<IOException> failed = new AtomicReference<>();
        Semaphore slots = new Semaphore(PARALLEL);
        LongConsumer report = progress;
        progress = x -> {
            synchronized (done) {
                report.accept(x);
            }
        };
        LongConsumer bar = progress;
        BTree.NodeSource nodes = bp -> {
            if (!firstTime(seen, bp)) return null;
            long before = meta.scanned;
            byte[] b = work.visit(bp, meta);
            bar.accept(done.addAndGet(meta.scanned - before));
            return b;
        };
        try (ExecutorService tasks = Executors.newVirtualThreadPerTaskExecutor()) {
            byte[] mosBytes = nodes.read(mosBp);
            if (mosBytes == null) throw new IOException("pool '" + pool.name() + "': the MOS block has no good copy");
            MosBlock mos = MosBlock.decode(mosBytes);
            List<Long> heads = new ArrayList<>();
            BTree.walk(0, mos.directoryRoot(), nodes, (k, v) -> {
                if (k.type() == DatasetDir.HEAD) heads.add(k.obj());
                return true;
            });
            DatasetDir dir = new DatasetDir(new BTree(io, 0, mos.directoryRoot()));
            for (long id : heads) {
                DatasetHead h = dir.head(id);
                if (h == null || h.root().isHole()) continue;
                try {
                    BTree.walk(Snapshots.treeId(dir, id, h), h.root(), nodes, (k, v) -> {
                        if (failed.get() != null) throw failed.get();
                        if (k.type() != DATA) return true;
                        BlockPointer bp = BlockPointer.fromBytes(v);
                        if (bp.isHole() || !firstTime(seen, bp)) return true;
                        slots.acquireUninterruptibly();
                        tasks.submit(() -> {
                            try {
                                Healing.Counts c = new Healing.Counts();
                                work.visit(bp, c);
                                total.add(c);
                                bar.accept(done.addAndGet(c.scanned));
                            } catch (IOException e) {
                                failed.compareAndSet(null, e);
                            } catch (RuntimeException e) {
                                failed.compareAndSet(null, new IOException(e));
                            } finally {
                                slots.release();
                            }
                        });
                        return true;
                    });
                } catch (FormatException e) {
                    meta.errors.add("dataset " + id + ": " + e.getMessage());
                }
            }
            BlockPointer log = mos.spaceLog();
            while (!log.isHole()) {
                byte[] b = nodes.read(log);
                if (b == null) break;
                log = BlockPointer.decode(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN), 16);
            }
        }
        if (failed.get() != null) throw failed.get();
        total.add(meta);
        return total;
    }

    private static final int DATA = 80;

    /** True the first time a block (by its first copy's place) is met: snapshots and clones share blocks. */
    private static boolean firstTime(Set<Long> seen, BlockPointer bp) {
        var d = bp.dvas()[0];
        return seen.add((long) d.device() << 52 | d.offset() >>> 12);
    }
}
