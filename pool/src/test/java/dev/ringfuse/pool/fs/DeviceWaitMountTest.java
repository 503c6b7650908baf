package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.GatedDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.testkit.MountedFsKit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A read whose record must come from the device waits for it without the pool lock and without its request thread
 * (pool/DESIGN.md, "Reads that wait for the device"): while one reader's device read is held, another file's read,
 * a stat and a write are answered; and a record overwritten and committed while its read waits is read with its new
 * bytes, never the old ones nor a checksum error. Reads and writes by dd with O_DIRECT (one READ or WRITE of its own
 * offset and size, past the kernel's page cache); the device's reads run on threads of their own, as io_uring's do.
 */
@Timeout(300)
class DeviceWaitMountTest {
    static final int RECORD = 128 << 10, RECORDS = 8;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void aReadWaitingForTheDeviceHoldsNeitherThePoolNorTheRequestThreads(TransportKind transport) throws Exception {
        byte[] a = random(1), b = random(2);
        onGatedPool(transport, (dev, pool, mp) -> {
            Path fa = mp.resolve("a"), fb = mp.resolve("b");
            Files.write(fa, a);
            Files.write(fb, b);
            fromTheDevice(pool);
            assertArrayEquals(part(a, 0, RECORD), dd(fa, 0, 1), "a's first record, from the device");
            assertArrayEquals(b, dd(fb, 0, RECORDS), "b whole, from the device (and now in the pool's cache)");
            CountDownLatch arrived = dev.holdReads();
            Process held = ddStart(fa, 5, 1);
            assertTrue(arrived.await(20, TimeUnit.SECONDS), "a's fifth record was asked of the device");
            assertArrayEquals(b, dd(fb, 0, RECORDS), "b read while a's read waits for the device");
            assertEquals(a.length, Files.size(fa), "a stat while a's read waits");
            Files.writeString(mp.resolve("c"), "written while a read waits");
            assertTrue(held.isAlive(), "a's read still waits for its record");
            long before = dev.reads.get();
            dev.releaseReads();
            assertArrayEquals(part(a, 5 * RECORD, RECORD), finish(held), "a's fifth record once the device answered");
            assertEquals(before, dev.reads.get(), "the record fetched is the one copied: not read a second time");
            assertEquals(0, pool.io().aheadBytes(), "the fetch's budget came back when its block was claimed");
        });
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void aRecordOverwrittenAndCommittedWhileItsReadWaitsIsReadWithItsNewBytes(TransportKind transport) throws Exception {
        byte[] a = random(3), fresh = part(random(4), 0, RECORD);
        GatedDevice used = onGatedPool(transport, (dev, pool, mp) -> {
            Path fa = mp.resolve("a"), src = Files.createTempFile("devicewait", ".bin");
            Files.write(fa, a);
            fromTheDevice(pool);
            assertArrayEquals(part(a, 0, RECORD), dd(fa, 0, 1), "a's first record (its tree is in memory from here)");
            CountDownLatch arrived = dev.holdReads();
            Process held = ddStart(fa, 3, 1);
            assertTrue(arrived.await(20, TimeUnit.SECONDS), "a's third record was asked of the device");
            // the whole record rewritten (no read of it) and committed: the block being read is no longer a's
            Files.write(src, fresh);
            run("dd", "if=" + src, "of=" + fa, "oflag=direct", "conv=notrunc", "bs=" + RECORD, "seek=3", "count=1", "status=none");
            Files.delete(src);
            pool.commit();
            System.arraycopy(fresh, 0, a, 3 * RECORD, RECORD);
            dev.releaseReads();
            assertArrayEquals(fresh, finish(held), "the read answered after the overwrite gives the new bytes");
            pool.io().cache().clear();
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
            assertArrayEquals(a, Files.readAllBytes(fa), "the whole file");
        });
        verifiesClean(used);
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void readsOfRecordsNotInMemoryAreAtTheDeviceTogether(TransportKind transport) throws Exception {
        int files = 3;
        byte[][] model = new byte[files][];
        onGatedPool(transport, (dev, pool, mp) -> {
            for (int i = 0; i < files; i++) Files.write(mp.resolve("f" + i), model[i] = random(10 + i));
            fromTheDevice(pool);
            for (int i = 0; i < files; i++) assertArrayEquals(part(model[i], 0, RECORD), dd(mp.resolve("f" + i), 0, 1), "f" + i);
            dev.holdReads();
            Process[] readers = new Process[files];
            for (int i = 0; i < files; i++) readers[i] = ddStart(mp.resolve("f" + i), 2 + i, 1);
            // one request thread (or one per CPU with io_uring): only reads that wait off it reach the device together
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (dev.readsHeld.get() < files && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(files, dev.readsHeld.get(), "every reader's record at the device at once");
            dev.releaseReads();
            for (int i = 0; i < files; i++) assertArrayEquals(part(model[i], (2 + i) * RECORD, RECORD), finish(readers[i]), "f" + i);
            assertEquals(0, pool.io().aheadBytes(), "no budget kept");
        });
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void aMountEndedWhileAReadWaitsForTheDeviceLeavesNoCallerWaitingAndThePoolWhole(TransportKind transport) throws Exception {
        byte[] a = random(5);
        Process[] held = new Process[1];
        GatedDevice used = onGatedPool(transport, (dev, pool, mp) -> {
            Path fa = mp.resolve("a");
            Files.write(fa, a);
            fromTheDevice(pool);
            assertArrayEquals(part(a, 0, RECORD), dd(fa, 0, 1), "a's first record");
            CountDownLatch arrived = dev.holdReads();
            held[0] = ddStart(fa, 6, 1);
            assertTrue(arrived.await(20, TimeUnit.SECONDS), "a's sixth record was asked of the device");
            // the mount ends (forced: the reader holds the file open) with the read waiting
        });
        // the device answered after the mount was gone: the late reply went nowhere, the reader is not left waiting
        if (held[0] != null) {
            assertTrue(held[0].waitFor(30, TimeUnit.SECONDS), "the reader ended");
            held[0].getInputStream().readAllBytes();
        }
        verifiesClean(used);
    }

    private interface GatedWork {
        void run(GatedDevice dev, Pool pool, Path mp) throws Exception;
    }

    /**
     * {@code work} on a pool over a gated device whose reads run on threads of their own, its dataset mounted over
     * {@code transport}; the device's held reads are let go whatever happens, then the pool is closed. Returns the
     * device.
     */
    private static GatedDevice onGatedPool(TransportKind transport, GatedWork work) throws Exception {
        GatedDevice dev = new GatedDevice("w", 256L << 20);
        dev.asyncReads = true;
        Pool pool = pool(dev);
        Path mp = MountedFsKit.newMountpoint("pool-devicewait");
        try {
            mounted(pool, mp, transport, () -> {
                work.run(dev, pool, mp);
                return null;
            });
        } finally {
            dev.releaseReads();
        }
        pool.close();
        return dev;
    }

    /** Commits what was written and empties the block cache: the next reads of it go to the device. */
    private static void fromTheDevice(Pool pool) throws Exception {
        pool.commit();
        pool.io().cache().clear();
    }

    private static void verifiesClean(GatedDevice dev) throws Exception {
        Pool again = Pool.open(List.<BlockDevice>of(dev));
        PoolVerifier.Report rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        again.close();
    }

    /**
     * {@code work} with the dataset mounted over {@code transport} by one request thread (io_uring: one queue per CPU):
     * a read that kept its thread while it waited would leave none for the next request.
     */
    private static <T> T mounted(Pool pool, Path mp, TransportKind transport, java.util.concurrent.Callable<T> work) throws Exception {
        if (transport == TransportKind.URING) Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
        MountOptions o = MountOptions.defaults().withTransport(transport).withThreads(1);
        return PoolFsMountTest.mounted(new PoolFs(pool.dataset("dw/d"), false), mp, o, work, java.time.Duration.ofSeconds(200));
    }

    private static Pool pool(GatedDevice dev) throws Exception {
        Pool pool = Pool.create("dw", List.<BlockDevice>of(dev));
        pool.createDataset("dw/d", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        return pool;
    }

    private static byte[] random(long seed) {
        byte[] b = new byte[RECORD * RECORDS];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] part(byte[] b, int from, int len) {
        return Arrays.copyOfRange(b, from, from + len);
    }

    /** {@code count} records of {@code f} from record {@code skip * count}, by one O_DIRECT read of dd. */
    private static byte[] dd(Path f, int skip, int count) throws Exception {
        return finish(ddStart(f, skip, count));
    }

    private static Process ddStart(Path f, int skip, int count) throws Exception {
        return new ProcessBuilder("dd", "if=" + f, "iflag=direct", "bs=" + RECORD * count, "skip=" + skip, "count=1",
                "status=none").redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** dd's output, or a failure if it has not finished within 30 s (a read stuck behind another one). */
    private static byte[] finish(Process p) throws Exception {
        var out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        boolean ended = p.waitFor(30, TimeUnit.SECONDS);
        if (!ended) p.destroyForcibly();
        assertTrue(ended, "dd finished within 30 s");
        assertEquals(0, p.exitValue(), "dd's status");
        return out.get(10, TimeUnit.SECONDS);
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd) + " finished");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    }
}
