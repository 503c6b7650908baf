package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.tree.Key;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * `pool verify`'s stream of file blocks (VerifyWindow: many reads in flight, checked in the device's buffers on
 * other threads) finds one flipped byte in any file block, with either checksum, compressed or not, and only
 * those; and the buffer check agrees with the array check.
 */
@Timeout(120)
class VerifyStreamTest {
    @TempDir
    Path tmp;

    @Test
    void theBufferChecksumIsTheArrayChecksum() {
        Random rnd = new Random(1);
        for (Checksum ck : Checksum.values()) {
            for (int len : new int[] {0, 1, 4095, 4096, 131072}) {
                byte[] b = new byte[len + 7];
                rnd.nextBytes(b);
                byte[] sum = ck.compute(b, 3, len);
                ByteBuffer direct = ByteBuffer.allocateDirect(len);
                direct.put(b, 3, len).flip();
                assertTrue(ck.matches(sum, direct), ck + " " + len);
                if (len > 0) {
                    direct.clear();
                    direct.put(len / 2, (byte) (direct.get(len / 2) ^ 1));
                    assertTrue(!ck.matches(sum, direct), ck + " " + len + " flipped");
                }
            }
        }
    }

    @Test
    void aFlippedByteInAnyFileBlockIsFoundAndOnlyThere() throws Exception {
        Path img = tmp.resolve("v.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Random rnd = new Random(7);
        List<BlockPointer> bps = new ArrayList<>();
        try (Pool pool = Pool.create("v", List.of(UringBlockDevice.open(img)))) {
            Dataset ds = pool.createDataset("v/d", Map.of());
            pool.lock().lock();
            try {
                // 300 blocks: more than the window's depth and its sorting groups, every checksum and compression
                for (int i = 0; i < 300; i++) {
                    byte[] data = new byte[131072];
                    if (i % 2 == 0) rnd.nextBytes(data);
                    else for (int j = 0; j < data.length; j++) data[j] = (byte) (j / 64 + i);
                    Compression c = Compression.values()[i % Compression.values().length];
                    Checksum ck = Checksum.values()[(i / 3) % Checksum.values().length];
                    BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, c, ck, 0, pool.txg() + 1, 1, false);
                    ds.born(bp);
                    ds.tree().put(new Key(100 + i, KvWorkload.DATA, 0), bp.toBytes());
                    bps.add(bp);
                }
            } finally {
                pool.lock().unlock();
            }
            pool.commit();
            assertTrue(PoolVerifier.verify(pool, null).clean());
            pool.export(false);
        }
        // flip one byte inside the stored bytes of some blocks, of every kind
        List<Integer> bad = List.of(0, 1, 2, 3, 4, 5, 77, 150, 299);
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            for (int i : bad) {
                Dva d = bps.get(i).dvas()[0];
                long at = d.offset() + rnd.nextInt(bps.get(i).psize());
                f.seek(at);
                int v = f.read();
                f.seek(at);
                f.write(v ^ 0x10);
            }
        }
        try (Pool pool = Pool.open(List.of(UringBlockDevice.open(img)))) {
            PoolVerifier.Report r = PoolVerifier.verify(pool, null);
            assertEquals(bad.size(), r.errors().size(), r.errors().toString());
            for (int i : bad) {
                String place = "copy 0:" + bps.get(i).dvas()[0].offset() + " of";
                assertTrue(r.errors().stream().anyMatch(e -> e.startsWith(place) && e.contains("checksum mismatch")),
                        "block " + i + " (" + bps.get(i).compression() + ", " + bps.get(i).checksumType() + "): " + r.errors());
            }
            assertEquals(bad.size(), pool.io().stats(0).checksumErrors.get());
        }
    }

    /**
     * A verify that stops midway (here its progress callback throws, with the window's reads in flight) gives back
     * every registered buffer of the device: the reads still in flight when it stopped finish and return theirs.
     * (The window used to shut its own checker threads down on the way out: a read completing after that could
     * not run its check, and its buffer never came back.)
     */
    @Test
    void aVerifyThatStopsMidwayGivesEveryBufferBack() throws Exception {
        Path img = tmp.resolve("s.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        try (Pool pool = Pool.create("s", List.of(UringBlockDevice.open(img)))) {
            Dataset ds = pool.createDataset("s/d", Map.of("compression", "off"));
            Random rnd = new Random(3);
            pool.lock().lock();
            try {
                for (int i = 0; i < 400; i++) {
                    byte[] data = new byte[131072];
                    rnd.nextBytes(data);
                    BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, Compression.OFF, Checksum.CRC32C, 0,
                            pool.txg() + 1, 1, false);
                    ds.born(bp);
                    ds.tree().put(new Key(100 + i, KvWorkload.DATA, 0), bp.toBytes());
                }
            } finally {
                pool.lock().unlock();
            }
            pool.commit();
            pool.export(false);
        }
        for (int round = 0; round < 2; round++) {
            UringBlockDevice dev = UringBlockDevice.open(img);
            try (Pool pool = Pool.open(List.of(dev))) {
                Assumptions.assumeTrue(dev.registered(), "no registered buffers here");
                int[] calls = {0};
                int stopAt = 40 + round * 50;
                RuntimeException e = assertThrows(RuntimeException.class, () -> PoolVerifier.verify(pool, done -> {
                    if (++calls[0] >= stopAt) throw new IllegalStateException("stop");
                }));
                assertEquals("stop", e.getMessage());
                long until = System.nanoTime() + 10_000_000_000L;
                while (dev.fixedInUse() > 0 && System.nanoTime() < until) Thread.sleep(10);
                assertEquals(0, dev.fixedInUse(), "registered buffers still leased after the verify stopped (round " + round + ")");
            }
        }
    }

    /**
     * A device without registered buffers ({@code -Dpool.uring.buffers=0}, which the device supports: plain buffers
     * per request) is verified too: the window's depth follows the buffer count and must stay at least 1 (at 0 the
     * window waited for a read in flight before the first one and failed with a NullPointerException).
     */
    @Test
    void aDeviceWithoutRegisteredBuffersIsVerified() throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(javaBin, "--enable-native-access=ALL-UNNAMED", "-Dpool.uring.buffers=0",
                "-cp", System.getProperty("java.class.path"), NoBuffers.class.getName(), tmp.resolve("n.img").toString())
                .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes());
        assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), out);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("verify clean"), out);
    }

    /** The child of {@link #aDeviceWithoutRegisteredBuffersIsVerified}: a pool of 40 file blocks, verified. */
    static final class NoBuffers {
        public static void main(String[] a) throws Exception {
            Path img = Path.of(a[0]);
            try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
                f.setLength(64L << 20);
            }
            try (Pool pool = Pool.create("n", List.of(UringBlockDevice.open(img)))) {
                Dataset ds = pool.createDataset("n/d", Map.of());
                pool.lock().lock();
                try {
                    for (int i = 0; i < 40; i++) {
                        byte[] data = new byte[131072];
                        new Random(i).nextBytes(data);
                        BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, Compression.OFF, Checksum.CRC32C, 0,
                                pool.txg() + 1, 1, false);
                        ds.born(bp);
                        ds.tree().put(new Key(100 + i, KvWorkload.DATA, 0), bp.toBytes());
                    }
                } finally {
                    pool.lock().unlock();
                }
                PoolVerifier.Report r = PoolVerifier.verify(pool, null);
                System.out.println(r.clean() ? "verify clean" : "verify found " + r.errors());
            }
        }
    }
}
