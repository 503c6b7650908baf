package dev.ringfuse.pool.fs;

import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.io.BlockIo;
import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Dirty records compressed and checksummed ahead of the commit, on other threads (as ZFS's ZIO pipeline
 * does): a record is handed over when a write fills it to its end (a sequential writer's records), and
 * whatever is not ready at the commit is prepared there, all records at once on these threads. Before, the
 * commit compressed and checksummed every record on its own thread while holding the pool lock: every
 * request waited for up to 64 MiB of lz4 (DESIGN.md, "Write path").
 *
 * <p>Keyed by the identity of the record's buffer. A preparation reads the buffer without the pool lock; it
 * is valid only while nobody changed the buffer since it was handed over, so every change of a dirty buffer
 * first {@link #forget forgets} it (FileData.dirtyBlock is the one place that hands a buffer out for
 * change). A stale preparation's result is never looked at. Callers hold the pool lock.
 */
final class RecordPrep {
    /**
     * Shared by every mounted dataset; a worker ends after {@link #IDLE_SECONDS} without a record (as the
     * ForkJoinPool's do), so no thread outlives the last commit by more than that.
     */
    private static final ExecutorService WORKERS = workers(
            Math.max(1, Integer.getInteger("pool.prepare.threads", Runtime.getRuntime().availableProcessors())));
    static final int IDLE_SECONDS = 10;

    private static ExecutorService workers(int n) {
        ThreadPoolExecutor e = new ThreadPoolExecutor(n, n, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "pool-prepare");
            t.setDaemon(true);
            return t;
        });
        e.allowCoreThreadTimeOut(true);
        return e;
    }

    private record Job(int len, Compression comp, Checksum ck, Future<BlockIo.Prepared> result) {}

    private final Map<byte[], Job> jobs = new IdentityHashMap<>();

    /** Starts preparing {@code record[0, len)} (its content is final unless {@link #forget} is called). */
    void start(byte[] record, int len, Compression comp, Checksum ck) {
        jobs.put(record, new Job(len, comp, ck, WORKERS.submit(() -> BlockIo.prepare(BlockType.FILE_DATA, record, len, comp, ck))));
    }

    /** The buffer is about to change: a preparation started before is void. */
    void forget(byte[] record) {
        if (jobs.isEmpty()) return;
        Job j = jobs.remove(record);
        if (j != null) j.result().cancel(false);
    }

    /**
     * A future for {@code record[0, len)} prepared with {@code comp} and {@code ck}: the one started ahead if
     * it still fits, else a new one (so that the commit's misses run in parallel too).
     */
    Future<BlockIo.Prepared> get(byte[] record, int len, Compression comp, Checksum ck) {
        Job j = jobs.remove(record);
        if (j != null && j.len() == len && j.comp() == comp && j.ck() == ck && !j.result().isCancelled()) return j.result();
        if (j != null) j.result().cancel(false);
        return WORKERS.submit(() -> BlockIo.prepare(BlockType.FILE_DATA, record, len, comp, ck));
    }

    /** How many preparations are held. */
    int size() { return jobs.size(); }

    /** Drops every preparation (after the commit took what it needed; the rest were of records dropped). */
    void clear() {
        for (Job j : jobs.values()) j.result().cancel(false);
        jobs.clear();
    }

    /** The result of {@code f}, waiting for it without giving up on an interrupt (the commit needs it). */
    static BlockIo.Prepared await(Future<BlockIo.Prepared> f) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IOException("preparing a block failed: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
