package dev.ringfuse.pool.tree;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.io.BlockIo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A copy-on-write B+tree of byte values, stored through {@link BlockIo}. Changes happen in memory: the first
 * change to a node since it was written frees its old block (deferred by the allocator) and marks it dirty;
 * {@link #commit} writes dirty nodes children-first and returns the new root pointer. Nothing on disk is
 * modified in place. Not thread-safe: the owner (a dataset, the dataset directory) serialises access.
 */
public final class BTree {
    /** Nodes split when their encoding would pass this many bytes. */
    public static final int NODE_BUDGET = 16 * 1024;
    /** Largest value accepted. */
    public static final int MAX_VALUE = 8 * 1024;

    /** Receives each key and value of a scan; return false to stop. */
    public interface Visitor {
        boolean visit(Key key, byte[] value) throws IOException;
    }

    private final BlockIo io;
    private final long treeId;
    private Node root;
    private Checksum checksum = Checksum.CRC32C;
    private java.util.function.Consumer<BlockPointer> freer;
    private java.util.function.Consumer<BlockPointer> onWrite;

    /** A tree whose root is at {@code rootBp} (a hole for an empty tree). */
    public BTree(BlockIo io, long treeId, BlockPointer rootBp) throws IOException {
        this.io = io;
        this.treeId = treeId;
        if (rootBp.isHole()) {
            root = new Node(0);
            root.dirty = true;
        } else {
            root = load(rootBp);
        }
    }

    public long treeId() { return treeId; }
    public boolean dirty() { return root.dirty; }

    /**
     * Where the blocks this tree replaces go: by default straight to the allocator's (deferred) frees; a
     * dataset with snapshots routes them through its dead list (DESIGN.md, "Snapshots and dead lists").
     */
    public void freer(java.util.function.Consumer<BlockPointer> f) { this.freer = f; }

    /** Sees every node block the tree writes (a dataset counts them: DESIGN.md, "Space accounting"). */
    public void onWrite(java.util.function.Consumer<BlockPointer> w) { this.onWrite = w; }

    private void release(BlockPointer bp) {
        if (freer != null) freer.accept(bp);
        else io.allocator().free(bp.dvas());
    }

    /** Points the tree at another committed root (rollback); in-memory changes are dropped, nothing is freed. */
    public void reset(BlockPointer rootBp) throws IOException {
        if (rootBp.isHole()) {
            root = new Node(0);
            root.dirty = true;
        } else {
            root = load(rootBp);
        }
    }

    /** Checksum for nodes written from now on. */
    public void checksum(Checksum c) { this.checksum = c; }

    private Node load(BlockPointer bp) throws IOException {
        Node n = Node.decode(io.read(bp), treeId, bp.level());
        n.bp = bp;
        return n;
    }

    private Node child(Node parent, int i) throws IOException {
        Node.Child c = parent.children.get(i);
        if (c.node == null) c.node = load(c.bp);
        return c.node;
    }

    public byte[] get(Key k) throws IOException {
        Node n = root;
        while (!n.leaf()) n = child(n, n.childIndex(k));
        int i = n.search(k);
        return i >= 0 ? n.values.get(i) : null;
    }

    /** Marks the path dirty, freeing the blocks it replaces. */
    private void touch(List<Node> path) {
        for (Node n : path) {
            if (!n.dirty) {
                if (n.bp != null) release(n.bp);
                n.bp = null;
                n.dirty = true;
            }
        }
    }

    private List<Node> pathTo(Key k, List<Integer> idx) throws IOException {
        List<Node> path = new ArrayList<>();
        Node n = root;
        path.add(n);
        while (!n.leaf()) {
            int i = n.childIndex(k);
            idx.add(i);
            n = child(n, i);
            path.add(n);
        }
        return path;
    }

    public void put(Key k, byte[] value) throws IOException {
        if (value.length > MAX_VALUE) throw new IllegalArgumentException("value of " + value.length + " bytes");
        List<Integer> idx = new ArrayList<>();
        List<Node> path = pathTo(k, idx);
        touch(path);
        Node leaf = path.getLast();
        int i = leaf.search(k);
        if (i >= 0) leaf.set(i, value);
        else leaf.insert(-i - 1, k, value);
        for (int d = path.size() - 1; d >= 0 && path.get(d).bytes() > NODE_BUDGET; d--) split(path, idx, d);
    }

    private void split(List<Node> path, List<Integer> idx, int depth) {
        Node n = path.get(depth);
        Node right = new Node(n.level);
        right.dirty = true;
        int half = n.bytes() / 2, acc = Node.HEADER, at = 0;
        while (at < n.size() - 1) {
            acc += n.leaf() ? Key.SIZE + 2 + n.values.get(at).length : Node.CHILD_ENTRY;
            if (acc > half && at > 0) break;
            at++;
        }
        right.keys.addAll(n.keys.subList(at, n.size()));
        n.keys.subList(at, n.keys.size()).clear();
        if (n.leaf()) {
            right.values.addAll(n.values.subList(at, n.values.size()));
            n.values.subList(at, n.values.size()).clear();
            n.recount();
            right.recount();
        } else {
            right.children.addAll(n.children.subList(at, n.children.size()));
            n.children.subList(at, n.children.size()).clear();
        }
        Key sep = right.keys.getFirst();
        if (depth == 0) {
            Node newRoot = new Node(n.level + 1);
            newRoot.dirty = true;
            newRoot.keys.add(Key.MIN);
            newRoot.children.add(new Node.Child(null, n));
            newRoot.keys.add(sep);
            newRoot.children.add(new Node.Child(null, right));
            root = newRoot;
            path.addFirst(newRoot);
            idx.addFirst(0);
        } else {
            Node parent = path.get(depth - 1);
            int pi = idx.get(depth - 1);
            parent.keys.add(pi + 1, sep);
            parent.children.add(pi + 1, new Node.Child(null, right));
        }
    }

    public boolean delete(Key k) throws IOException {
        List<Integer> idx = new ArrayList<>();
        List<Node> path = pathTo(k, idx);
        Node leaf = path.getLast();
        int i = leaf.search(k);
        if (i < 0) return false;
        touch(path);
        leaf.removeAt(i);
        for (int d = path.size() - 1; d > 0; d--) {
            Node n = path.get(d);
            if (n.bytes() >= NODE_BUDGET / 4) break;
            mergeWithSibling(path.get(d - 1), idx.get(d - 1));
        }
        while (!root.leaf() && root.size() == 1) {
            Node only = child(root, 0);
            touch(List.of(only));
            root = only;
        }
        return true;
    }

    /** Merges child {@code ci} of {@code parent} with a neighbour if both fit one node; empties are dropped. */
    private void mergeWithSibling(Node parent, int ci) throws IOException {
        Node n = parent.children.get(ci).node;
        if (n.size() == 0) {
            parent.keys.remove(ci);
            parent.children.remove(ci);
            if (ci == 0 && parent.size() > 0) parent.keys.set(0, Key.MIN);
            return;
        }
        int li = ci > 0 ? ci - 1 : ci, ri = li + 1;
        if (ri >= parent.size()) return;
        Node left = child(parent, li), right = child(parent, ri);
        int merged = left.bytes() + right.bytes() - Node.HEADER;
        if (merged > NODE_BUDGET) return;
        touch(List.of(left, right));
        if (right.level > 0) right.keys.set(0, parent.keys.get(ri));
        left.keys.addAll(right.keys);
        if (left.leaf()) {
            left.values.addAll(right.values);
            left.recount();
        } else {
            left.children.addAll(right.children);
        }
        right.dirty = false; // its contents moved; nothing to write for it
        parent.keys.remove(ri);
        parent.children.remove(ri);
    }

    /** Visits keys in [from, to) in order. */
    public void scan(Key from, Key to, Visitor v) throws IOException {
        scan(root, from, to, v);
    }

    private boolean scan(Node n, Key from, Key to, Visitor v) throws IOException {
        if (n.leaf()) {
            int i = n.search(from);
            if (i < 0) i = -i - 1;
            for (; i < n.size(); i++) {
                if (n.keys.get(i).compareTo(to) >= 0) return false;
                if (!v.visit(n.keys.get(i), n.values.get(i))) return false;
            }
            return true;
        }
        for (int i = n.childIndex(from); i < n.size(); i++) {
            if (i > 0 && n.keys.get(i).compareTo(to) >= 0) return false;
            if (!scan(child(n, i), from, to, v)) return false;
        }
        return true;
    }

    /** Writes every dirty node (children first) as of {@code txg}; returns the root's pointer. */
    public BlockPointer commit(long txg, Compression comp) throws IOException {
        return write(root, txg, comp);
    }

    private BlockPointer write(Node n, long txg, Compression comp) throws IOException {
        if (!n.dirty) return n.bp;
        long fill = 0;
        if (n.leaf()) fill = n.size();
        else {
            for (Node.Child c : n.children) {
                if (c.node != null && c.node.dirty) c.bp = write(c.node, txg, comp);
                else if (c.node != null) c.bp = c.node.bp;
                fill += c.bp.fill();
            }
        }
        byte[] bytes = n.encode(treeId, txg);
        n.bp = io.write(BlockType.BTREE_NODE, bytes, bytes.length, comp, checksum, n.level, txg, fill, true);
        n.dirty = false;
        if (onWrite != null) onWrite.accept(n.bp);
        return n.bp;
    }

    /** Frees every node of the tree and shows each leaf entry to {@code leaves} (to free data blocks); the tree is unusable afterwards. */
    public void freeAll(Visitor leaves) throws IOException {
        freeAll(root, leaves);
    }

    private void freeAll(Node n, Visitor leaves) throws IOException {
        if (n.bp != null && !n.dirty) release(n.bp);
        if (n.leaf()) {
            for (int i = 0; i < n.size(); i++) leaves.visit(n.keys.get(i), n.values.get(i));
            return;
        }
        for (int i = 0; i < n.size(); i++) freeAll(child(n, i), leaves);
    }

    /**
     * Frees (through {@code free}) every node born after {@code txg} and shows the leaves of those nodes to
     * {@code leaves}; a subtree whose pointer was born at or before {@code txg} is shared with a snapshot and
     * is neither loaded nor freed. With {@code txg} 0 this is {@link #freeAll}. The tree is unusable afterwards.
     */
    public void freeBornAfter(long txg, java.util.function.Consumer<BlockPointer> free, Visitor leaves) throws IOException {
        freeBornAfter(root, txg, free, leaves);
    }

    private void freeBornAfter(Node n, long txg, java.util.function.Consumer<BlockPointer> free, Visitor leaves) throws IOException {
        if (n.bp != null && !n.dirty) {
            if (n.bp.birth() <= txg) return;
            free.accept(n.bp);
        }
        if (n.leaf()) {
            for (int i = 0; i < n.size(); i++) leaves.visit(n.keys.get(i), n.values.get(i));
            return;
        }
        for (int i = 0; i < n.size(); i++) {
            Node.Child c = n.children.get(i);
            if (c.node == null && c.bp.birth() <= txg) continue;
            freeBornAfter(child(n, i), txg, free, leaves);
        }
    }

    /**
     * Visits, in key order, leaf entries of the committed tree under {@code rootBp} that sit in nodes born after
     * {@code txg}; each child pointer born at or before it is shown to {@code skipped} instead of being read
     * (incremental send: those subtrees are the "from" snapshot's, unchanged).
     */
    public static void scanBornAfter(BlockIo io, long treeId, BlockPointer rootBp, long txg, Visitor v,
                                     java.util.function.Consumer<BlockPointer> skipped) throws IOException {
        if (rootBp.isHole()) return;
        if (rootBp.birth() <= txg) {
            skipped.accept(rootBp);
            return;
        }
        Node n = Node.decode(io.read(rootBp), treeId, rootBp.level());
        if (n.leaf()) {
            for (int i = 0; i < n.size(); i++) if (!v.visit(n.keys.get(i), n.values.get(i))) return;
            return;
        }
        for (Node.Child c : n.children) scanBornAfter(io, treeId, c.bp, txg, v, skipped);
    }

    /** Visits, in key order, leaf entries of the committed tree under {@code rootBp}, skipping subtrees {@code skip} accepts. */
    public static void scanExcept(BlockIo io, long treeId, BlockPointer rootBp, java.util.function.Predicate<BlockPointer> skip,
                                  Visitor v) throws IOException {
        if (rootBp.isHole() || skip.test(rootBp)) return;
        Node n = Node.decode(io.read(rootBp), treeId, rootBp.level());
        if (n.leaf()) {
            for (int i = 0; i < n.size(); i++) if (!v.visit(n.keys.get(i), n.values.get(i))) return;
            return;
        }
        for (Node.Child c : n.children) scanExcept(io, treeId, c.bp, skip, v);
    }

    /** Gives a whole-pool walk each node's verified bytes; null skips the node's subtree (seen, or unreadable). */
    public interface NodeSource {
        byte[] read(BlockPointer bp) throws IOException;
    }

    /**
     * Walks the committed tree under {@code rootBp} without keeping it in memory (scrub, resilver): each node's
     * bytes come from {@code nodes}, each leaf entry goes to {@code leaves}.
     */
    public static void walk(long treeId, BlockPointer rootBp, NodeSource nodes, Visitor leaves) throws IOException {
        if (rootBp.isHole()) return;
        byte[] b = nodes.read(rootBp);
        if (b == null) return;
        Node n = Node.decode(b, treeId, rootBp.level());
        if (n.leaf()) {
            for (int i = 0; i < n.size(); i++) if (!leaves.visit(n.keys.get(i), n.values.get(i))) return;
            return;
        }
        for (Node.Child c : n.children) walk(treeId, c.bp, nodes, leaves);
    }

    /** What {@link #verifyOnce} asks of `pool verify`, which remembers the subtrees it has walked. */
    public interface OnceWalk {
        /** The key range [min, max] of the subtree at {@code bp} if it was walked before (from another tree), else null. */
        Key[] walked(BlockPointer bp);

        /** The node's logical bytes, every copy read and checked by the caller; null if none was readable (reported). */
        byte[] read(BlockPointer bp) throws IOException;

        /** The subtree at {@code bp} is walked: its keys lie in [min, max] (both null for an empty root). */
        void done(BlockPointer bp, Key min, Key max);

        boolean leaf(Key key, byte[] value) throws IOException;
    }

    /**
     * Verification of the committed tree under {@code rootBp} that reads each node once however many trees
     * share it: a subtree {@code w} has walked before (snapshots and clones share unchanged subtrees) is not
     * read again; only its remembered key range is checked against this parent's bounds.
     */
    public static void verifyOnce(long treeId, BlockPointer rootBp, OnceWalk w) throws IOException {
        if (!rootBp.isHole()) verifyOnce(treeId, rootBp, null, null, w);
    }

    private static Key[] verifyOnce(long treeId, BlockPointer bp, Key lo, Key hi, OnceWalk w) throws IOException {
        Key[] range = w.walked(bp);
        if (range == null) {
            byte[] bytes = w.read(bp);
            if (bytes == null) return null;
            Node n = Node.decode(bytes, treeId, bp.level());
            Key min = null, max = null;
            if (n.leaf()) {
                for (int i = 0; i < n.size(); i++) if (!w.leaf(n.keys.get(i), n.values.get(i))) break;
                if (n.size() > 0) {
                    min = n.keys.getFirst();
                    max = n.keys.getLast();
                }
            } else {
                for (int i = 0; i < n.size(); i++) {
                    Key clo = i == 0 ? lo : n.keys.get(i);
                    Key chi = i + 1 < n.size() ? n.keys.get(i + 1) : hi;
                    if (i > 0 && (lo != null && clo.compareTo(lo) < 0 || hi != null && clo.compareTo(hi) >= 0)) {
                        throw new FormatException("tree " + treeId + ": separator key outside its parent's bounds");
                    }
                    Key[] c = verifyOnce(treeId, n.children.get(i).bp, clo, chi, w);
                    if (c == null || c[0] == null) continue;
                    if (min == null) min = c[0];
                    max = c[1];
                }
            }
            w.done(bp, min, max);
            range = new Key[] {min, max};
        }
        if (range[0] != null) {
            if (lo != null && range[0].compareTo(lo) < 0) throw new FormatException("tree " + treeId + ": key below its parent's bound");
            if (hi != null && range[1].compareTo(hi) >= 0) throw new FormatException("tree " + treeId + ": key above its parent's bound");
        }
        return range;
    }

    /** Verification: walks every node from the root, checking order and bounds; counts nodes via {@code onNode}. */
    public void verify(java.util.function.Consumer<BlockPointer> onNode, Visitor leaves) throws IOException {
        verify(root, null, null, onNode, leaves);
    }

    private void verify(Node n, Key lo, Key hi, java.util.function.Consumer<BlockPointer> onNode, Visitor leaves) throws IOException {
        if (n.bp != null) onNode.accept(n.bp);
        for (int i = 0; i < n.size(); i++) {
            Key k = n.keys.get(i);
            if (!(i == 0 && !n.leaf())) {
                if (lo != null && k.compareTo(lo) < 0) throw new dev.ringfuse.pool.format.FormatException("tree " + treeId + ": key below its parent's bound");
                if (hi != null && k.compareTo(hi) >= 0) throw new dev.ringfuse.pool.format.FormatException("tree " + treeId + ": key above its parent's bound");
            }
            if (n.leaf()) leaves.visit(k, n.values.get(i));
        }
        if (n.leaf()) return;
        for (int i = 0; i < n.size(); i++) {
            Key clo = i == 0 ? lo : n.keys.get(i);
            Key chi = i + 1 < n.size() ? n.keys.get(i + 1) : hi;
            verify(child(n, i), clo, chi, onNode, leaves);
        }
    }
}
