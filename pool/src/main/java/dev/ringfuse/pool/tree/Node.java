package dev.ringfuse.pool.tree;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One B+tree node in memory: a leaf (keys + values) or an internal node (keys + children). {@code bp} is
 * where its current contents are on disk (null while new); a dirty node differs from {@code bp}.
 * Encoding per DESIGN.md, "Copy-on-write B+tree".
 */
final class Node {
    static final int MAGIC = 0x54424652; // "RFBT" little-endian
    static final int HEADER = 24;
    static final int CHILD_ENTRY = Key.SIZE + BlockPointer.SIZE;

    /** A child of an internal node: its pointer and, once loaded, the node itself. */
    static final class Child {
        BlockPointer bp;
        Node node;

        Child(BlockPointer bp, Node node) {
            this.bp = bp;
            this.node = node;
        }
    }

    final int level;
    final List<Key> keys = new ArrayList<>();
    final List<byte[]> values;   // leaves
    final List<Child> children;  // internal nodes
    BlockPointer bp;
    boolean dirty;
    /**
     * A leaf's entries' encoded bytes (key, length, value), kept as entries change: every put and delete asks
     * {@link #bytes} whether the node must split or merge, and summing ~300 entries each time was 6 % of a
     * metadata run's server CPU. Changes go through {@link #set}, {@link #insert}, {@link #removeAt}; bulk
     * moves (split, merge) call {@link #recount}.
     */
    private int entryBytes;

    Node(int level) {
        this.level = level;
        this.values = level == 0 ? new ArrayList<>() : null;
        this.children = level == 0 ? null : new ArrayList<>();
    }

    boolean leaf() {
        return level == 0;
    }

    int size() {
        return keys.size();
    }

    /** Encoded size in bytes. */
    int bytes() {
        if (!leaf()) return HEADER + keys.size() * CHILD_ENTRY;
        return HEADER + entryBytes;
    }

    /** Replaces leaf value {@code i}. */
    void set(int i, byte[] v) {
        entryBytes += v.length - values.set(i, v).length;
    }

    /** Inserts a leaf entry at {@code i}. */
    void insert(int i, Key k, byte[] v) {
        keys.add(i, k);
        values.add(i, v);
        entryBytes += Key.SIZE + 2 + v.length;
    }

    /** Removes leaf entry {@code i}. */
    void removeAt(int i) {
        keys.remove(i);
        entryBytes -= Key.SIZE + 2 + values.remove(i).length;
    }

    /** Recomputes a leaf's byte count after entries moved in bulk. */
    void recount() {
        if (!leaf()) return;
        int n = 0;
        for (byte[] v : values) n += Key.SIZE + 2 + v.length;
        entryBytes = n;
    }

    /** Index of the child whose range holds {@code k} (internal nodes). */
    int childIndex(Key k) {
        int lo = 1, hi = keys.size() - 1, ans = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (keys.get(mid).compareTo(k) <= 0) {
                ans = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return ans;
    }

    /** Binary search in a leaf: index if found, else -(insertion point) - 1. */
    int search(Key k) {
        int lo = 0, hi = keys.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = keys.get(mid).compareTo(k);
            if (c < 0) lo = mid + 1;
            else if (c > 0) hi = mid - 1;
            else return mid;
        }
        return -lo - 1;
    }

    byte[] encode(long treeId, long txg) {
        ByteBuffer b = ByteBuffer.allocate(bytes()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).put((byte) level).put((byte) 0).putShort((short) keys.size()).putLong(treeId).putLong(txg);
        for (int i = 0; i < keys.size(); i++) {
            if (leaf()) {
                keys.get(i).encode(b);
                byte[] v = values.get(i);
                b.putShort((short) v.length).put(v);
            } else {
                (i == 0 ? Key.MIN : keys.get(i)).encode(b);
                children.get(i).bp.encode(b, b.position());
                b.position(b.position() + BlockPointer.SIZE);
            }
        }
        // the kept byte count sized the buffer: an entry changed behind its back would show here, not on disk
        if (b.hasRemaining()) throw new IllegalStateException("B-tree node: " + b.remaining() + " bytes fewer than counted");
        return b.array();
    }

    static Node decode(byte[] bytes, long treeId, int expectedLevel) throws FormatException {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < HEADER || b.getInt() != MAGIC) throw new FormatException("B-tree node: bad magic");
        int level = b.get() & 0xFF;
        b.get();
        int count = b.getShort() & 0xFFFF;
        long id = b.getLong();
        b.getLong();
        if (id != treeId) throw new FormatException("B-tree node of tree " + id + " found in tree " + treeId);
        if (level != expectedLevel) throw new FormatException("B-tree node level " + level + ", expected " + expectedLevel);
        Node n = new Node(level);
        try {
            for (int i = 0; i < count; i++) {
                Key k = Key.decode(b);
                if (i > 0 && n.keys.getLast().compareTo(k) >= 0) throw new FormatException("B-tree node: keys out of order");
                n.keys.add(k);
                if (n.leaf()) {
                    byte[] v = new byte[b.getShort() & 0xFFFF];
                    b.get(v);
                    n.values.add(v);
                    n.entryBytes += Key.SIZE + 2 + v.length;
                } else {
                    BlockPointer c = BlockPointer.decode(b, b.position());
                    b.position(b.position() + BlockPointer.SIZE);
                    if (c.isHole() || c.level() != level - 1) throw new FormatException("B-tree node: bad child pointer");
                    n.children.add(new Child(c, null));
                }
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new FormatException("B-tree node: truncated");
        }
        if (count == 0 && level > 0) throw new FormatException("B-tree node: empty internal node");
        return n;
    }
}
