package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.BlockPointer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * `pool verify`'s file blocks as a stream: up to {@link #DEPTH} reads in flight at every moment, each checksummed
 * on a checker thread as soon as it arrives, results handed back in submission order to the one thread that
 * walks the trees (its error list and byte count stay single-threaded). Before, the walk read 64 blocks, waited
 * for all of them and checksummed them itself: the device idled while it checked and walked (DESIGN.md,
 * "Verification"). Pointers are submitted in groups sorted by device and offset, so that a fragmented file is
 * read in disk order rather than key order, and blocks that lie one after another are read by one device read
 * ({@link BlockIo#MERGE_BYTES}). The checks run on {@link BlockIo#CHECKERS}, as read-ahead's do.
 */
public final class VerifyWindow implements AutoCloseable {
    /**
     * Device reads in flight: the device's registered buffers (a read beyond them allocates a buffer of its own),
     * and several times the 8 × 1 MiB at which this machine's disk reaches its sequential bandwidth; at least one
     * (a device may run without registered buffers). A read covers up to {@link BlockIo#MERGE_BYTES} of blocks
     * stored one after another.
     */
    static final int DEPTH = Math.max(1, Integer.getInteger("pool.verify.depth", UringBlockDevice.FIXED_COUNT));
    /**
     * Pointers sorted together before submission: 64 (8 MiB of 128 KiB records, 1 MiB of 16 KiB ones), so that
     * what a file's leaves name in key order is read in runs as long as a merged read.
     */
    static final int GROUP = 64;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** One device read: the blocks it covers and each one's check. */
    private record InFlight(List<BlockPointer> run, List<CompletableFuture<String>> checks) {}

    private final BlockIo io;
    private final BiConsumer<BlockPointer, String> done;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final List<BlockPointer> group = new ArrayList<>(GROUP);

    /**
     * {@code done} receives each pointer with null or what is wrong with it, in the order they were submitted
     * (groups in the order added, sorted by place within a group).
     */
    VerifyWindow(BlockIo io, BiConsumer<BlockPointer, String> done) {
        this.io = io;
        this.done = done;
    }

    /** Queues a single-copy pointer (its first DVA only) for reading and checking. */
    public void add(BlockPointer single) {
        group.add(single);
        if (group.size() >= GROUP) submitGroup();
    }

    private void submitGroup() {
        group.sort(Comparator.comparingInt((BlockPointer bp) -> bp.dvas()[0].device()).thenComparingLong(bp -> bp.dvas()[0].offset()));
        List<BlockPointer> run = new ArrayList<>();
        long runBytes = 0;
        for (BlockPointer bp : group) {
            long size = bp.dvas()[0].asize();
            if (!run.isEmpty() && (!BlockIo.follows(run.getLast(), bp) || runBytes + size > BlockIo.MERGE_BYTES)) {
                submitRun(run);
                run = new ArrayList<>();
                runBytes = 0;
            }
            run.add(bp);
            runBytes += size;
        }
        if (!run.isEmpty()) submitRun(run);
        group.clear();
    }

    private void submitRun(List<BlockPointer> run) {
        while (inFlight.size() >= DEPTH) finishOldest();
        inFlight.add(new InFlight(run, io.checkRunAsync(run)));
    }

    private void finishOldest() {
        InFlight f = inFlight.poll();
        long until = System.nanoTime() + DEADLINE_NANOS; // one deadline for the read, not one per block
        boolean arrived = false, timedOut = false;
        for (int i = 0; i < f.run().size(); i++) {
            BlockPointer bp = f.run().get(i);
            String why;
            try {
                long wait = Math.max(0, until - System.nanoTime());
                // once the read has arrived its blocks are checked one after another: a block checked just after
                // the deadline is not a read that timed out
                if (arrived) wait = Math.max(wait, GRACE_NANOS);
                why = f.checks().get(i).get(wait, TimeUnit.NANOSECONDS);
                arrived = true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                why = "interrupted";
            } catch (TimeoutException e) {
                if (!timedOut) io.readFailed(bp.dvas()[0]); // one device read that never answered, counted once
                timedOut = true;
                why = "I/O timed out after " + TimeUnit.NANOSECONDS.toSeconds(DEADLINE_NANOS) + " s";
            } catch (ExecutionException e) {
                arrived = true;
                why = e.getCause() != null ? e.getCause().toString() : e.toString();
            }
            done.accept(bp, why);
        }
    }

    /** Reads and checks everything queued; returns when every result has been handed back. */
    public void drain() {
        submitGroup();
        while (!inFlight.isEmpty()) finishOldest();
    }

    /** Drains. */
    @Override
    public void close() {
        drain();
    }
}
