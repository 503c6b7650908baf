package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.NameHash;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dataset directory (tree id 0): dataset heads, properties and the parent → child name index
 * (DESIGN.md, "Dataset directory"). Callers hold the pool lock.
 */
public final class DatasetDir {
    static final int HEAD = 1, PROP = 2, CHILD = 3, SNAP = 4, DEADLIST = 5;
    private final BTree tree;
    /** Counts changes to names and properties: {@link DatasetSpace} re-reads the hierarchy and limits when it moves. */
    private long structureVersion;

    DatasetDir(BTree tree) {
        this.tree = tree;
    }

    long structureVersion() { return structureVersion; }

    /** Counts head changes: {@link DatasetSpace} caches the counters of datasets that are not open until it moves. */
    private long headVersion;

    long headVersion() { return headVersion; }

    BTree tree() { return tree; }

    public DatasetHead head(long id) throws IOException {
        byte[] v = tree.get(new Key(id, HEAD, 0));
        return v == null ? null : DatasetHead.decode(v);
    }

    void putHead(long id, DatasetHead h) throws IOException {
        headVersion++;
        tree.put(new Key(id, HEAD, 0), h.encode());
    }

    /** The child of {@code parent} named {@code name}, or 0. */
    public long child(long parent, String name) throws IOException {
        return named(parent, CHILD, name);
    }

    /** The snapshot of filesystem {@code fs} named {@code name}, or 0. */
    public long snapshot(long fs, String name) throws IOException {
        return named(fs, SNAP, name);
    }

    /** Snapshots of {@code fs}: name → id (in hash order; callers sort by creation txg). */
    public Map<String, Long> snapshots(long fs) throws IOException {
        return namesOf(fs, SNAP);
    }

    void addSnapshot(long fs, String name, long id) throws IOException {
        addName(fs, SNAP, name, id);
    }

    void removeSnapshot(long fs, String name) throws IOException {
        removeName(fs, SNAP, name);
    }

    /** Puts {@code bp} on the dead list {@code owner} (keyed by its first copy's place: unique among live blocks). */
    void addDead(long owner, dev.ringfuse.pool.format.BlockPointer bp) throws IOException {
        tree.put(deadKey(owner, bp), bp.toBytes());
    }

    static Key deadKey(long owner, dev.ringfuse.pool.format.BlockPointer bp) {
        var d = bp.dvas()[0];
        return new Key(owner, DEADLIST, ((long) d.device() << 48) | (d.offset() / dev.ringfuse.pool.format.Layout.SECTOR));
    }

    /** Every block pointer on dead list {@code owner}, in key order. */
    List<dev.ringfuse.pool.format.BlockPointer> dead(long owner) throws IOException {
        List<dev.ringfuse.pool.format.BlockPointer> out = new ArrayList<>();
        tree.scan(Key.first(owner, DEADLIST), Key.after(owner, DEADLIST), (k, v) -> out.add(dev.ringfuse.pool.format.BlockPointer.fromBytes(v)));
        return out;
    }

    void removeDead(long owner, dev.ringfuse.pool.format.BlockPointer bp) throws IOException {
        tree.delete(deadKey(owner, bp));
    }

    /** Ids of every head (filesystems and snapshots). */
    List<Long> allHeads() throws IOException {
        List<Long> out = new ArrayList<>();
        tree.scan(Key.first(0, 0), new Key(-1L, 0xFF, -1L), (k, v) -> {
            if (k.type() == HEAD) out.add(k.obj());
            return true;
        });
        return out;
    }

    private long named(long parent, int type, String name) throws IOException {
        byte[] v = tree.get(new Key(parent, type, NameHash.of(name)));
        if (v == null) return 0;
        for (Map.Entry<String, Long> e : decodeNames(v).entrySet()) if (e.getKey().equals(name)) return e.getValue();
        return 0;
    }

    /** Children of {@code parent}: name → id. */
    public Map<String, Long> children(long parent) throws IOException {
        return namesOf(parent, CHILD);
    }

    private Map<String, Long> namesOf(long parent, int type) throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        tree.scan(Key.first(parent, type), Key.after(parent, type), (k, v) -> {
            out.putAll(decodeNames(v));
            return true;
        });
        return out;
    }

    void addChild(long parent, String name, long id) throws IOException {
        addName(parent, CHILD, name, id);
    }

    void removeChild(long parent, String name) throws IOException {
        removeName(parent, CHILD, name);
    }

    private void addName(long parent, int type, String name, long id) throws IOException {
        structureVersion++;
        Key k = new Key(parent, type, NameHash.of(name));
        byte[] v = tree.get(k);
        Map<String, Long> m = v == null ? new LinkedHashMap<>() : decodeNames(v);
        m.put(name, id);
        tree.put(k, encodeNames(m));
    }

    private void removeName(long parent, int type, String name) throws IOException {
        structureVersion++;
        Key k = new Key(parent, type, NameHash.of(name));
        byte[] v = tree.get(k);
        if (v == null) return;
        Map<String, Long> m = decodeNames(v);
        m.remove(name);
        if (m.isEmpty()) tree.delete(k);
        else tree.put(k, encodeNames(m));
    }

    /** Locally set properties of a dataset. */
    public Map<String, String> properties(long id) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        tree.scan(Key.first(id, PROP), Key.after(id, PROP), (k, v) -> {
            ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
            int nl = b.getShort() & 0xFFFF;
            String name = new String(v, 2, nl, StandardCharsets.UTF_8);
            b.position(2 + nl);
            int vl = b.getShort() & 0xFFFF;
            out.put(name, new String(v, 4 + nl, vl, StandardCharsets.UTF_8));
            return true;
        });
        return out;
    }

    void setProperty(long id, String name, String value) throws IOException {
        structureVersion++;
        Key k = new Key(id, PROP, NameHash.of(name));
        if (value == null) {
            tree.delete(k);
            return;
        }
        byte[] n = name.getBytes(StandardCharsets.UTF_8), val = value.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + n.length + val.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) n.length).put(n).putShort((short) val.length).put(val);
        tree.put(k, b.array());
    }

    void removeAll(long id) throws IOException {
        structureVersion++;
        headVersion++;
        List<Key> keys = new ArrayList<>();
        tree.scan(Key.first(id, 0), Key.first(id + 1, 0), (k, v) -> keys.add(k));
        for (Key k : keys) tree.delete(k);
    }

    private static Map<String, Long> decodeNames(byte[] v) throws FormatException {
        Map<String, Long> m = new LinkedHashMap<>();
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (b.hasRemaining()) {
                long id = b.getLong();
                int nl = b.getShort() & 0xFFFF;
                byte[] n = new byte[nl];
                b.get(n);
                m.put(new String(n, StandardCharsets.UTF_8), id);
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new FormatException("dataset directory: truncated child entry");
        }
        return m;
    }

    private static byte[] encodeNames(Map<String, Long> m) {
        int size = 0;
        for (String n : m.keySet()) size += 10 + n.getBytes(StandardCharsets.UTF_8).length;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (Map.Entry<String, Long> e : m.entrySet()) {
            byte[] n = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putLong(e.getValue()).putShort((short) n.length).put(n);
        }
        return b.array();
    }
}
