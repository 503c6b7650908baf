package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.tree.Key;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Full and incremental streams between pools: the received tree equals the sent snapshot key for key (data
 * read back), an incremental stream carries only the changed blocks, and a truncated or corrupted stream is
 * refused with the target exactly as before (contents, snapshots, clean verification).
 */
@Timeout(120)
class SendReceiveTest {
    static byte[] send(Pool p, String snap, String from) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Sender.send(p, snap, from, out, x -> { });
        return out.toByteArray();
    }

    static Receiver.Result receive(Pool p, String target, byte[] stream) throws IOException {
        return Receiver.receive(p, target, new ByteArrayInputStream(stream), false, x -> { }, x -> { });
    }

    static void put(Pool pool, Dataset ds, long obj, long idx, byte[] data) throws IOException {
        pool.lock().lock();
        try {
            BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, Compression.OFF, Checksum.CRC32C, 0,
                    pool.txg() + 1, 1, false);
            ds.born(bp);
            Key k = new Key(obj, KvWorkload.DATA, idx);
            byte[] old = ds.tree().get(k);
            if (old != null) ds.free(BlockPointer.fromBytes(old));
            ds.tree().put(k, bp.toBytes());
            pool.dirty();
        } finally {
            pool.lock().unlock();
        }
    }

    @Test
    void fullAndIncrementalStreamsReproduceTheSnapshot() throws Exception {
        Pool src = Pool.create("src", List.of(new MemoryDevice("a", 256L << 20)));
        Pool dst = Pool.create("dst", List.of(new MemoryDevice("b", 256L << 20)));
        Dataset ds = src.createDataset("src/ds", Map.of());
        KvWorkload w = new KvWorkload(5);
        for (int i = 0; i < 800; i++) w.step(ds);
        Snapshots.create(src, "src/ds@a");
        byte[] full = send(src, "src/ds@a", null);
        Receiver.Result r = receive(dst, "dst/copy", full);
        assertEquals("dst/copy@a", r.snapshot());
        KvWorkload.assertSame(w.model, KvWorkload.read(dst.dataset("dst/copy")));
        assertEquals(Snapshots.guid(src, "src/ds@a"), Snapshots.guid(dst, "dst/copy@a"));

        for (int i = 0; i < 300; i++) w.step(ds);
        Snapshots.create(src, "src/ds@b");
        byte[] inc = send(src, "src/ds@b", "@a");
        receive(dst, "dst/copy", inc);
        KvWorkload.assertSame(w.model, KvWorkload.read(dst.dataset("dst/copy")));
        KvWorkload.assertSame(w.model, KvWorkload.read(Snapshots.view(dst, "dst/copy@b")));
        SnapshotTest.assertClean(src);
        SnapshotTest.assertClean(dst);

        // the same incremental again: the target's newest snapshot is no longer its source
        IOException stale = assertThrows(IOException.class, () -> receive(dst, "dst/copy", inc));
        assertTrue(stale.getMessage().contains("not the stream's source"), stale.getMessage());
        src.close();
        dst.close();
    }

    @Test
    void incrementalCarriesOnlyChangedBlocks() throws Exception {
        Pool src = Pool.create("src", List.of(new MemoryDevice("a", 256L << 20)));
        Dataset ds = src.createDataset("src/big", Map.of());
        Random rnd = new Random(1);
        byte[] block = new byte[128 * 1024];
        for (int i = 0; i < 512; i++) { // 64 MiB
            rnd.nextBytes(block);
            put(src, ds, 5, i, block.clone());
        }
        Snapshots.create(src, "src/big@a");
        for (int i = 0; i < 8; i++) { // 1 MiB changed
            rnd.nextBytes(block);
            put(src, ds, 5, 100 + i * 50, block.clone());
        }
        Snapshots.create(src, "src/big@b");
        byte[] full = send(src, "src/big@b", null);
        byte[] inc = send(src, "src/big@b", "src/big@a");
        System.out.printf("64 MiB dataset: full stream %d bytes; after changing 1 MiB, incremental stream %d bytes%n",
                full.length, inc.length);
        assertTrue(full.length > 64L << 20, "full stream carries every block");
        assertTrue(inc.length < 2L << 20, "incremental stream carries the changed blocks only: " + inc.length);
        assertTrue(inc.length > 1L << 20, "and all of them");
        src.close();
    }

    @Test
    void badStreamsAreRefusedAndChangeNothing() throws Exception {
        MemoryDevice dev = new MemoryDevice("b", 256L << 20);
        Pool src = Pool.create("src", List.of(new MemoryDevice("a", 256L << 20)));
        Pool dst = Pool.create("dst", List.of(dev));
        Dataset ds = src.createDataset("src/ds", Map.of());
        KvWorkload w = new KvWorkload(8);
        for (int i = 0; i < 500; i++) w.step(ds);
        Snapshots.create(src, "src/ds@a");
        TreeMap<Key, byte[]> atA = new TreeMap<>(w.model);
        byte[] full = send(src, "src/ds@a", null);
        for (int i = 0; i < 500; i++) w.step(ds);
        Snapshots.create(src, "src/ds@b");
        byte[] inc = send(src, "src/ds@b", "@a");

        // a full stream cut short or with a flipped byte creates nothing
        IOException cut = assertThrows(IOException.class, () -> receive(dst, "dst/copy", Arrays.copyOf(full, full.length / 2)));
        assertTrue(cut.getMessage().contains("truncated"), cut.getMessage());
        assertEquals(0, dst.lookup("dst/copy"));
        byte[] flipped = full.clone();
        flipped[flipped.length / 3] ^= 0x10;
        IOException bad = assertThrows(IOException.class, () -> receive(dst, "dst/copy", flipped));
        assertTrue(bad.getMessage().contains("corrupted") || bad.getMessage().contains("truncated"), bad.getMessage());
        assertEquals(0, dst.lookup("dst/copy"));
        SnapshotTest.assertClean(dst);

        // an incremental stream that fails leaves the target at its snapshot, unchanged
        receive(dst, "dst/copy", full);
        for (int at : new int[] {inc.length - 3, inc.length / 2, 100}) {
            byte[] broken = Arrays.copyOf(inc, at);
            assertThrows(IOException.class, () -> receive(dst, "dst/copy", broken));
            KvWorkload.assertSame(atA, KvWorkload.read(dst.dataset("dst/copy")));
            assertEquals(List.of("dst/copy@a"), Snapshots.list(dst, "dst/copy").stream().map(Snapshots.Info::name).toList());
            SnapshotTest.assertClean(dst);
        }
        byte[] flippedInc = inc.clone();
        flippedInc[inc.length - 60] ^= 1; // inside the last record before END
        IOException badEnd = assertThrows(IOException.class, () -> receive(dst, "dst/copy", flippedInc));
        assertTrue(badEnd.getMessage().contains("corrupted"), badEnd.getMessage());
        KvWorkload.assertSame(atA, KvWorkload.read(dst.dataset("dst/copy")));
        IOException notStream = assertThrows(IOException.class, () -> receive(dst, "dst/other", "hello, world, not a stream".getBytes()));
        assertTrue(notStream.getMessage().contains("stream"), notStream.getMessage());

        // and the good stream still applies; the state survives an import
        receive(dst, "dst/copy", inc);
        KvWorkload.assertSame(w.model, KvWorkload.read(dst.dataset("dst/copy")));
        dst.close();
        Pool again = Pool.open(List.of(dev));
        KvWorkload.assertSame(w.model, KvWorkload.read(again.dataset("dst/copy")));
        SnapshotTest.assertClean(again);
        again.close();
        src.close();
    }
}
