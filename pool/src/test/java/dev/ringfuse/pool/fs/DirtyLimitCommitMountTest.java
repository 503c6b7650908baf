package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.GatedDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A writer past the dirty-data limit waits for a commit (memory bound), and only it: the commit's writes and
 * flush run without the pool lock, so other requests are answered meanwhile. /dev/fuse with
 * several reader threads, so that a second request is not queued behind the writer's on one thread.
 */
@Timeout(180)
class DirtyLimitCommitMountTest {
    @Test
    void aWriterPastTheDirtyLimitWaitsAloneForItsCommit() throws Exception {
        GatedDevice dev = new GatedDevice("w", 512L << 20);
        Pool pool = Pool.create("w", List.<BlockDevice>of(dev));
        pool.createDataset("w/fs", Map.of("compression", "off"));
        Path mp = MountedFsKit.newMountpoint("dirtylimit");
        PoolFs fs = new PoolFs(pool.dataset("w/fs"), false, 0); // no timed commits: the writer's commit is the one held
        MountOptions options = MountOptions.defaults().withTransport(TransportKind.DEV).withThreads(4);
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, options));
        long size = PoolFsFiles.DIRTY_LIMIT + (16 << 20);
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(150), mp, () -> {
                CountDownLatch flushing = dev.holdNextFlush();
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                    ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                    try (FileChannel c = FileChannel.open(mp.resolve("big"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                        for (long done = 0; done < size; done += 1 << 20) {
                            b.clear();
                            while (b.hasRemaining()) c.write(b);
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, r -> Thread.ofPlatform().name("writer").start(r));
                assertTrue(flushing.await(60, TimeUnit.SECONDS), "the writer's commit reaches the flush");
                CompletableFuture<Boolean> lookup = CompletableFuture.supplyAsync(() -> Files.exists(mp.resolve("absent")),
                        r -> Thread.ofPlatform().name("lookup").start(r)); // not behind the writer in the common pool
                boolean answered;
                try {
                    answered = !lookup.get(5, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    answered = false;
                }
                dev.open();
                writer.get(60, TimeUnit.SECONDS);
                lookup.get(30, TimeUnit.SECONDS);
                assertTrue(answered, "a lookup waited for the writer's commit to flush");
                assertEquals(size, Files.size(mp.resolve("big")));
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
        }
        pool.close();
    }
}
