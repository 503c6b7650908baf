package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A random workload straight on a dataset's tree: small values (inodes, names) and data blocks written
 * through BlockIo (compressible or not), with a model of what each commit made durable.
 */
final class KvWorkload {
    static final int DATA = 80;
    final Random rnd;
    final TreeMap<Key, byte[]> model = new TreeMap<>();
    TreeMap<Key, byte[]> committed = new TreeMap<>();
    TreeMap<Key, byte[]> attempted = new TreeMap<>();

    KvWorkload(long seed) {
        this.rnd = new Random(seed);
    }

    /** One random change to {@code ds}. */
    void step(Dataset ds) throws IOException {
        Pool pool = ds.pool();
        pool.lock().lock();
        try {
            int kind = rnd.nextInt(10);
            long obj = 1 + rnd.nextInt(200);
            if (kind < 4) {
                Key k = new Key(obj, 16, 0);
                byte[] v = new byte[1 + rnd.nextInt(900)];
                rnd.nextBytes(v);
                ds.tree().put(k, v);
                model.put(k, v);
            } else if (kind < 7) {
                Key k = new Key(obj, DATA, rnd.nextInt(8));
                byte[] data = new byte[4096 * (1 + rnd.nextInt(8))];
                if (rnd.nextBoolean()) rnd.nextBytes(data);
                else java.util.Arrays.fill(data, (byte) rnd.nextInt(4));
                Compression c = Compression.values()[rnd.nextInt(3)];
                BlockPointer bp = pool.io().write(BlockType.FILE_DATA, data, data.length, c, Checksum.CRC32C, 0,
                        pool.txg() + 1, 1, false);
                ds.born(bp); // the dataset counts the blocks of its tree (DESIGN.md, "Space accounting")
                byte[] old = ds.tree().get(k);
                if (old != null) ds.free(BlockPointer.fromBytes(old));
                ds.tree().put(k, bp.toBytes());
                model.put(k, data);
            } else {
                Map.Entry<Key, byte[]> e = model.ceilingEntry(new Key(obj, 0, 0));
                if (e == null) return;
                byte[] old = ds.tree().get(e.getKey());
                if (e.getKey().type() == DATA) ds.free(BlockPointer.fromBytes(old));
                ds.tree().delete(e.getKey());
                model.remove(e.getKey());
            }
            pool.dirty();
        } finally {
            pool.lock().unlock();
        }
    }

    /** Commits; the model is durable once this returns. */
    void commit(Pool pool) throws IOException {
        attempted = new TreeMap<>(model);
        pool.commit();
        committed = attempted;
    }

    /** The dataset's contents, data blocks read back through their pointers. */
    /** Frees and deletes data keys 0 .. n-1 of object 1 in one txg (left open: the caller commits). */
    static void deleteData(Pool pool, Dataset ds, int n) throws IOException {
        pool.lock().lock();
        try {
            for (int i = 0; i < n; i++) {
                Key k = new Key(1, DATA, i);
                ds.free(BlockPointer.fromBytes(ds.tree().get(k)));
                ds.tree().delete(k);
            }
            pool.dirty();
        } finally {
            pool.lock().unlock();
        }
    }

    static TreeMap<Key, byte[]> read(Dataset ds) throws IOException {
        TreeMap<Key, byte[]> out = new TreeMap<>();
        Pool pool = ds.pool();
        ds.tree().scan(Key.MIN, new Key(-1L, 255, -1L), (k, v) -> {
            out.put(k, k.type() == DATA ? pool.io().read(BlockPointer.fromBytes(v)) : v);
            return true;
        });
        return out;
    }

    static void assertSame(TreeMap<Key, byte[]> expected, TreeMap<Key, byte[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        for (Key k : expected.keySet()) assertArrayEquals(expected.get(k), actual.get(k), k.toString());
    }

    static boolean same(TreeMap<Key, byte[]> a, TreeMap<Key, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) return false;
        for (Key k : a.keySet()) if (!java.util.Arrays.equals(a.get(k), b.get(k))) return false;
        return true;
    }
}
