package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.ChecksumException;
import dev.ringfuse.pool.io.UringBlockDevice;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Pools on sparse image files through io_uring with O_DIRECT: round trip, bad images, corruption, latency. */
@Timeout(120)
class ImageFilePoolTest {
    @TempDir
    Path tmp;

    Path image(String name, long size) throws IOException {
        Path p = tmp.resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
        return p;
    }

    static List<BlockDevice> open(Path... paths) throws IOException {
        List<BlockDevice> out = new ArrayList<>();
        for (Path p : paths) out.add(UringBlockDevice.open(p));
        return out;
    }

    @Test
    void createWriteExportImportVerifyOnTwoImages() throws Exception {
        Path a = image("a.img", 96L << 20), b = image("b.img", 80L << 20);
        KvWorkload w = new KvWorkload(7);
        List<BlockDevice> devs = open(a, b);
        assertTrue(((UringBlockDevice) devs.getFirst()).direct(), "O_DIRECT on this filesystem");
        try (Pool pool = Pool.create("tank", devs)) {
            Dataset ds = pool.createDataset("tank/home", Map.of("compression", "lz4"));
            for (int i = 0; i < 600; i++) w.step(ds);
            w.commit(pool);
            assertEquals("lz4", ds.property("compression"));
            pool.export(false);
        }
        try (Pool pool = Pool.open(open(b, a))) {
            assertEquals(List.of("tank", "tank/home"), pool.datasets());
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("tank/home")));
            PoolVerifier.Report r = PoolVerifier.verify(pool, null);
            assertTrue(r.clean(), r.errors().toString());
            assertTrue(r.blocks() > 100);
        }
    }

    @Test
    void badImagesGiveClearErrors() throws Exception {
        Path zero = image("zero.img", 64L << 20);
        IOException e = assertThrows(IOException.class, () -> Pool.open(open(zero)));
        assertTrue(e.getMessage().contains("no valid pool label"), e.getMessage());

        Path small = image("small.img", 1L << 20);
        e = assertThrows(IOException.class, () -> Pool.open(open(small)));
        assertTrue(e.getMessage().contains("too small"), e.getMessage());

        Path foreign = image("foreign.img", 64L << 20);
        byte[] junk = new byte[1 << 20];
        new java.util.Random(3).nextBytes(junk);
        try (RandomAccessFile f = new RandomAccessFile(foreign.toFile(), "rw")) {
            for (long at = 0; at < 64L << 20; at += junk.length) {
                f.seek(at);
                f.write(junk);
            }
        }
        e = assertThrows(IOException.class, () -> Pool.open(open(foreign)));
        assertTrue(e.getMessage().contains("no valid pool label"), e.getMessage());

        // a pool image truncated to half: its end labels and size no longer match
        Path img = image("trunc.img", 128L << 20);
        Pool.create("t", open(img)).export(false);
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(64L << 20);
        }
        e = assertThrows(IOException.class, () -> Pool.open(open(img)));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());

        // one of two devices missing
        Path x = image("x.img", 64L << 20), y = image("y.img", 64L << 20);
        Pool.create("two", open(x, y)).export(false);
        e = assertThrows(IOException.class, () -> Pool.open(open(x)));
        assertTrue(e.getMessage().contains("is missing"), e.getMessage());
    }

    @Test
    void corruptedDataBlockIsEioAndCountedWhileDittoMetadataSurvives() throws Exception {
        Path img = image("c.img", 64L << 20);
        KvWorkload w = new KvWorkload(11);
        try (Pool pool = Pool.create("c", open(img))) {
            Dataset ds = pool.createDataset("c/d", Map.of());
            for (int i = 0; i < 300; i++) w.step(ds);
            w.commit(pool);
            pool.export(false);
        }
        // overwrite the first 2 MiB of the allocatable area: data blocks and one copy of early metadata
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.seek(Layout.ALLOC_START);
            f.write(new byte[2 << 20]);
        }
        try (Pool pool = Pool.open(open(img))) {
            Dataset ds = pool.dataset("c/d");
            int bad = 0;
            TreeMap<dev.ringfuse.pool.tree.Key, byte[]> got = new TreeMap<>();
            List<dev.ringfuse.pool.tree.Key> keys = new ArrayList<>(w.committed.keySet());
            for (dev.ringfuse.pool.tree.Key k : keys) {
                byte[] v = ds.tree().get(k);
                if (k.type() != KvWorkload.DATA) {
                    assertEquals(java.util.HexFormat.of().formatHex(w.committed.get(k)), java.util.HexFormat.of().formatHex(v));
                    continue;
                }
                try {
                    got.put(k, pool.io().read(dev.ringfuse.pool.format.BlockPointer.fromBytes(v)));
                    assertEquals(java.util.Arrays.hashCode(w.committed.get(k)), java.util.Arrays.hashCode(got.get(k)));
                } catch (ChecksumException e) {
                    bad++;
                }
            }
            assertTrue(bad > 0, "some data blocks were destroyed");
            assertTrue(pool.io().stats(0).checksumErrors.get() >= bad);
            PoolVerifier.Report r = PoolVerifier.verify(pool, null);
            assertTrue(!r.clean() && r.errors().stream().allMatch(s -> s.contains("checksum")), r.errors().toString());
            // a scrub of a single device: bad ditto copies of metadata are rewritten, lost file blocks reported
            Scrub.Report s = Scrub.scrub(pool, null);
            assertTrue(s.unrepairable() >= bad && s.errors().stream().allMatch(e -> e.contains("no good copy")), s.toString());
            Scrub.Report again = Scrub.scrub(pool, null);
            assertEquals(0, again.repaired(), again.toString());
            assertEquals(s.unrepairable(), again.unrepairable());
        }
    }

    @Test
    void commitLatencyIsMeasured() throws Exception {
        Path img = image("lat.img", 256L << 20);
        try (Pool pool = Pool.create("lat", open(img))) {
            Dataset ds = pool.createDataset("lat/d", Map.of());
            KvWorkload w = new KvWorkload(5);
            long[] ns = new long[200];
            for (int i = 0; i < ns.length; i++) {
                w.step(ds);
                long t0 = System.nanoTime();
                pool.commit();
                ns[i] = System.nanoTime() - t0;
            }
            java.util.Arrays.sort(ns);
            System.out.printf("commit latency after one small change (%s): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n",
                    img, ns[100] / 1e6, ns[180] / 1e6, ns[198] / 1e6);
            assertTrue(ns[100] > 0);
        }
    }
}
