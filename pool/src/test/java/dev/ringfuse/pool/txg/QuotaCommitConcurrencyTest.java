package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The quota check commits from inside a request, under the pool lock, while other threads commit in their
 * own orders (DESIGN.md, "Space accounting"): a write past the quota (pool lock, then its commit), fsync and
 * the background commit (pool lock for the cut, then the commit lock alone for the I/O), and a caller that
 * holds the pool lock across a commit and reads the figures (the mount tests' usage()). All of them must
 * finish; a hang fails with every thread's stack. And a commit that dies of an Error must not leave the
 * commit lock held, which would hang every later commit and, through the pool lock, every request.
 */
@Timeout(120)
class QuotaCommitConcurrencyTest {
    private static final int KIND = KvWorkload.DATA; // file data as the verifier counts it

    /** Dirty "file data" of one dataset, written as blocks by its sync hook at each commit (as FileData does). */
    static final class Dirty {
        final AtomicLong bytes = new AtomicLong();
        final List<Integer> lens = new ArrayList<>();
        long next;

        void install(Dataset ds) {
            ds.pendingBytes(bytes::get);
            ds.syncHook(txg -> {
                Pool pool = ds.pool();
                for (int len : lens) {
                    BlockPointer bp = pool.io().write(BlockType.FILE_DATA, new byte[len], len, Compression.OFF, Checksum.CRC32C, 0,
                            txg, 1, false);
                    ds.born(bp);
                    ds.tree().put(new Key(7, KIND, next++), bp.toBytes());
                }
                lens.clear();
                bytes.set(0);
            });
        }
    }

    /** Frees the first block of the dataset (deletion needs no room). Under the pool lock. */
    static void deleteOne(Dataset ds) throws IOException {
        Key[] first = {null};
        ds.tree().scan(new Key(7, KIND, 0), new Key(7, KIND, Long.MAX_VALUE), (k, v) -> {
            first[0] = k;
            return false;
        });
        if (first[0] == null) return;
        ds.free(BlockPointer.fromBytes(ds.tree().get(first[0])));
        ds.tree().delete(first[0]);
        ds.pool().dirty();
    }

    @Test
    void quotaCheckCommitsBesideBackgroundFsyncAndLockedCommits() throws Exception {
        Pool pool = Pool.create("qc", List.<BlockDevice>of(new MemoryDevice("m", 128L << 20)));
        pool.createDataset("qc/d", Map.of("compression", "off"));
        pool.setProperty("qc/d", "quota", "4M");
        pool.commit();
        Dataset ds = pool.dataset("qc/d");
        Dirty dirty = new Dirty();
        pool.lock().lock();
        try {
            dirty.install(ds);
        } finally {
            pool.lock().unlock();
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong refused = new AtomicLong(), written = new AtomicLong(), commits = new AtomicLong(), usages = new AtomicLong();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            long seed = w;
            all.add(CompletableFuture.runAsync(() -> run(stop, () -> { // a write request: check, then buffer
                Random rnd = new Random(seed);
                int len = 4096 * (1 + rnd.nextInt(64));
                pool.lock().lock();
                try {
                    try {
                        ds.checkSpace(len); // past the quota: commits under the pool lock, then checks again
                    } catch (QuotaException | NoSpaceException full) {
                        refused.incrementAndGet();
                        for (int i = 0; i < 8; i++) deleteOne(ds);
                        return;
                    }
                    dirty.lens.add(len);
                    dirty.bytes.addAndGet(len);
                    pool.dirty();
                    written.incrementAndGet();
                } finally {
                    pool.lock().unlock();
                }
            }), r -> Thread.ofPlatform().name("writer-" + seed).start(r)));
        }
        all.add(CompletableFuture.runAsync(() -> run(stop, () -> { // fsync and the background commit
            pool.commit();
            commits.incrementAndGet();
        }), r -> Thread.ofPlatform().name("committer").start(r)));
        all.add(CompletableFuture.runAsync(() -> run(stop, () -> { // the mount tests' usage(): lock, commit, figures
            pool.lock().lock();
            try {
                pool.commit();
                DatasetSpace.Usage u = pool.space().usage(ds.id);
                assertTrue(u.used() <= (4L << 20) + (256 << 10), "used " + u.used() + " within the quota and one txg's nodes");
                usages.incrementAndGet();
            } finally {
                pool.lock().unlock();
            }
        }), r -> Thread.ofPlatform().name("usage").start(r)));
        Thread.sleep(3000);
        stop.set(true);
        try {
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            System.err.println(MountedFsKit.threadDump());
            fail("the threads did not stop within 60 s (deadlock? stacks on stderr): written " + written + ", refused " + refused);
        }
        assertTrue(refused.get() > 0 && written.get() > 0, "written " + written + ", refused " + refused);
        assertTrue(commits.get() > 0 && usages.get() > 0, "commits " + commits + ", usages " + usages);
        pool.commit();
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.close();
    }

    interface Step {
        void run() throws Exception;
    }

    private static void run(AtomicBoolean stop, Step step) {
        try {
            while (!stop.get()) step.run();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    void anErrorInsideACommitLeavesNoLockHeld() throws Exception {
        Pool pool = Pool.create("qe", List.<BlockDevice>of(new MemoryDevice("m", 64L << 20)));
        pool.createDataset("qe/d", Map.of());
        pool.commit();
        Dataset ds = pool.dataset("qe/d");
        AtomicBoolean once = new AtomicBoolean(true);
        ds.syncHook(txg -> {
            if (once.getAndSet(false)) throw new OutOfMemoryError("injected: a sync hook out of memory");
        });
        pool.dirty();
        OutOfMemoryError oom = assertThrows(OutOfMemoryError.class, pool::commit);
        assertEquals("injected: a sync hook out of memory", oom.getMessage());
        // another thread (a request, the timer) commits next: it must get an answer, not wait for ever
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> {
            try {
                pool.commit();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        try {
            next.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            System.err.println(MountedFsKit.threadDump());
            fail("a commit after an Error inside a commit hangs (the commit lock was left held)");
        }
        assertTrue(pool.lock().tryLock(5, TimeUnit.SECONDS), "the pool lock is free");
        pool.lock().unlock();
        pool.close();
    }
}
