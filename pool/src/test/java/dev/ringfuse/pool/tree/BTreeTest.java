package dev.ringfuse.pool.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.space.Allocator;
import dev.ringfuse.pool.space.SpaceMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The copy-on-write B+tree against a TreeMap model: random puts and deletes, commits, reloads from disk. */
class BTreeTest {
    @Test
    void randomOperationsMatchAModelAcrossCommitsAndReloads() throws Exception {
        MemoryDevice dev = new MemoryDevice("m", 256L << 20);
        Allocator alloc = new Allocator(new SpaceMap[] {new SpaceMap(Layout.ALLOC_START, Layout.allocEnd(dev.size()))});
        BlockIo io = new BlockIo(new BlockDevice[] {dev}, alloc);
        BTree t = new BTree(io, 7, BlockPointer.HOLE);
        TreeMap<Key, byte[]> model = new TreeMap<>();
        Random r = new Random(42);
        BlockPointer root = BlockPointer.HOLE;
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 2000; i++) {
                Key k = new Key(r.nextInt(5000), 16 + r.nextInt(3), r.nextInt(4));
                if (r.nextInt(3) == 0) {
                    assertEquals(model.remove(k) != null, t.delete(k));
                } else {
                    byte[] v = new byte[r.nextInt(round % 5 == 0 ? 3000 : 100)];
                    r.nextBytes(v);
                    t.put(k, v);
                    model.put(k, v);
                }
            }
            root = t.commit(round + 1, Compression.LZ4);
            io.submit();
            alloc.committed();
            if (round % 3 == 0) t = new BTree(io, 7, root); // reload everything from the blocks just written
            List<Key> seen = new ArrayList<>();
            t.scan(Key.MIN, new Key(-1L, 255, -1L), (k, v) -> {
                seen.add(k);
                assertArrayEquals(model.get(k), v);
                return true;
            });
            assertEquals(new ArrayList<>(model.keySet()), seen);
        }
        assertEquals(1, root.level() > 0 ? 1 : 0, "the tree grew internal levels");
        for (Map.Entry<Key, byte[]> e : model.entrySet()) assertArrayEquals(e.getValue(), t.get(e.getKey()));
        // delete everything: the tree shrinks back to one leaf
        for (Key k : new ArrayList<>(model.keySet())) t.delete(k);
        assertNull(t.get(model.firstKey()));
        BlockPointer empty = t.commit(99, Compression.OFF);
        assertEquals(0, empty.level());
        // range scans stop at the bound
        t.put(new Key(5, 16, 0), new byte[1]);
        t.put(new Key(5, 32, 1), new byte[1]);
        t.put(new Key(6, 16, 0), new byte[1]);
        List<Key> range = new ArrayList<>();
        t.scan(Key.first(5, 0), Key.first(6, 0), (k, v) -> range.add(k));
        assertEquals(List.of(new Key(5, 16, 0), new Key(5, 32, 1)), range);
    }

    @Test
    void unsignedKeyOrder() {
        assertEquals(-1, Integer.signum(new Key(1, 0, 0).compareTo(new Key(-1L, 0, 0))));
        assertEquals(-1, Integer.signum(new Key(1, 16, 5).compareTo(new Key(1, 32, 0))));
        assertEquals(1, Integer.signum(new Key(1, 16, -1L).compareTo(new Key(1, 16, 5))));
    }
}
