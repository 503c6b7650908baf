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
 * read in disk order rather than key order. The checks run on {@link BlockIo#CHECKERS}, as read-ahead's do.
 */
public final class VerifyWindow implements AutoCloseable {
    /**
     * Reads in flight: the device's registered buffers (a read beyond them allocates a buffer of its own), and
     * several times the 8 × 1 MiB at which this machine's disk reaches its sequential bandwidth; at least one
     * (a device may run without registered buffers).
     */
    static final int DEPTH = Math.max(1, Integer.getInteger("pool.verify.depth", UringBlockDevice.FIXED_COUNT));
    /** Pointers sorted together before submission (a leaf holds about this many file blocks' pointers). */
    static final int GROUP = 16;
    private static final long DEADLINE_SECONDS = 60;

    private record InFlight(BlockPointer bp, CompletableFuture<String> check) {}

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
        for (BlockPointer bp : group) {
            while (inFlight.size() >= DEPTH) finishOldest();
            inFlight.add(new InFlight(bp, io.checkAsync(bp)));
        }
        group.clear();
    }

    private void finishOldest() {
        InFlight f = inFlight.poll();
        String why;
        try {
            why = f.check().get(DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            why = "interrupted";
        } catch (TimeoutException e) {
            io.readFailed(f.bp().dvas()[0]);
            why = "I/O timed out after " + DEADLINE_SECONDS + " s";
        } catch (ExecutionException e) {
            why = e.getCause() != null ? e.getCause().toString() : e.toString();
        }
        done.accept(f.bp(), why);
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
