package dev.ringfuse.pool.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.GatedDevice;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Scrub;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the control socket (the unmount, just before the pool is closed) ends a scrub it is running for a
 * client: the pool must not be closed under a walk that still reads and repairs its devices.
 */
@Timeout(120)
class PoolControlCloseTest {
    @TempDir
    Path tmp;

    @Test
    void closeEndsAScrubInProgress() throws Exception {
        GatedDevice dev = new GatedDevice("c", 128L << 20);
        Pool pool = Pool.create("c", List.<BlockDevice>of(dev));
        pool.createDataset("c/d", Map.of("compression", "off"));
        Dataset ds = pool.dataset("c/d");
        int blocks = 4000; // 100 ms a read, 32 at a time: a scrub of about 13 s
        pool.lock().lock();
        try {
            Random rnd = new Random(1);
            for (int i = 0; i < blocks; i++) {
                byte[] data = new byte[4096]; // a queued write keeps the array until the commit writes it
                rnd.nextBytes(data);
                BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, Compression.OFF, Checksum.CRC32C, 0,
                        pool.txg() + 1, 1, false);
                ds.born(bp);
                ds.tree().put(new Key(7, 80, i), bp.toBytes()); // a file's data key, as the scrub walks them
            }
            pool.dirty();
        } finally {
            pool.lock().unlock();
        }
        pool.commit();

        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        PoolControl control = PoolControl.start(registry, pool);
        dev.readDelayNanos = 100_000_000L;
        long before = dev.reads.get();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<Integer> client = CompletableFuture.supplyAsync(() -> {
            try {
                return PoolControl.send(registry, "c", List.of("pool-scrub", "c"), new PrintStream(out, true, UTF_8));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        long end = System.nanoTime() + 30_000_000_000L;
        while (dev.reads.get() < before + 200 && System.nanoTime() < end) Thread.sleep(20);
        assertTrue(dev.reads.get() >= before + 200, "the scrub is reading");

        long t0 = System.nanoTime();
        control.close();
        long closeMs = (System.nanoTime() - t0) / 1_000_000;
        ExecutionException gone = assertThrows(ExecutionException.class, () -> client.get(10, TimeUnit.SECONDS));
        assertInstanceOf(java.io.UncheckedIOException.class, gone.getCause(), "the client is told the connection ended");
        assertTrue(closeMs < 5000, "close waited " + closeMs + " ms: the scrub went on after its connection was closed");

        dev.readDelayNanos = 0;
        long reads = dev.reads.get();
        Thread.sleep(300);
        assertEquals(reads, dev.reads.get(), "nothing reads the devices once the control socket is closed");
        Scrub.Report r = Scrub.scrub(pool, null); // "a scrub is running" if the first one still were
        assertEquals(0, r.unrepairable(), r.errors().toString());
        assertTrue(r.blocks() >= blocks, r.blocks() + " blocks scrubbed");
        pool.close();
    }
}
