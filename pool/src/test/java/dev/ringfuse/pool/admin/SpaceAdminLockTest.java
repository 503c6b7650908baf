package dev.ringfuse.pool.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.GatedDevice;
import dev.ringfuse.pool.txg.Pool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * `fs list`, `fs get` and `fs set` commit (exact figures, the new properties durable), in the process that has
 * the pool mounted when it is: their commit must leave the pool lock free during its writes and flush, as
 * {@link Pool#commit} arranges, or every request of the mount waits for the devices.
 */
@Timeout(120)
class SpaceAdminLockTest {
    private interface Command {
        void run(Pool p, PrintStream out) throws IOException;
    }

    @Test
    void listGetAndSetLeaveThePoolLockFreeWhileTheirCommitFlushes() throws Exception {
        GatedDevice dev = new GatedDevice("g", 128L << 20);
        Pool pool = Pool.create("g", List.<BlockDevice>of(dev));
        pool.createDataset("g/d", Map.of());
        pool.commit();
        Map<String, Command> commands = new LinkedHashMap<>();
        commands.put("fs list", (p, out) -> SpaceAdmin.list(p, null, SpaceAdmin.DEFAULT_COLUMNS, false, out));
        commands.put("fs get", (p, out) -> SpaceAdmin.get(p, "g/d", List.of("used", "compression"), false, out));
        commands.put("fs set", (p, out) -> SpaceAdmin.set(p, "g/d", Map.of("compression", "zstd")));
        Map<String, String> outputs = new LinkedHashMap<>();
        for (var c : commands.entrySet()) {
            pool.dirty(); // something for the command's commit to write
            CountDownLatch flushing = dev.holdNextFlush();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
                try {
                    c.getValue().run(pool, new PrintStream(bytes, true, UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            assertTrue(flushing.await(30, TimeUnit.SECONDS), c.getKey() + ": its commit reaches the flush");
            boolean free = pool.lock().tryLock(5, TimeUnit.SECONDS); // a request of the mount
            if (free) pool.lock().unlock();
            dev.open();
            run.get(30, TimeUnit.SECONDS);
            assertTrue(free, c.getKey() + " holds the pool lock while its commit flushes");
            outputs.put(c.getKey(), bytes.toString(UTF_8));
        }
        assertTrue(outputs.get("fs list").lines().anyMatch(l -> l.startsWith("g/d ")), outputs.get("fs list"));
        assertTrue(outputs.get("fs get").lines().anyMatch(l -> l.matches("g/d +compression +off +default")), outputs.get("fs get"));
        assertEquals("zstd", pool.dataset("g/d").property("compression"));
        pool.close();
    }
}
