package dev.ringfuse.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * The adapter's inode table: node id → (parent, name), with the kernel's lookup count per node. A node
 * stands for a file reached by path; a hard link made through the mount adds a name to the same node (a
 * file reached by two names before the adapter saw them linked gets two nodes). Node
 * ids are recycled after the kernel forgets them, each reuse with a new generation, so (id, generation)
 * never repeats. All methods synchronize on the table; it is small and never calls out.
 */
final class NodeTable {
    /** One name of a node: {@code name} in directory {@code parent}. */
    record Name(Node parent, String name) {}

    static final class Node {
        final long id;
        final long generation;
        /** The names the kernel reached this node by; the first is its path. Hard links add names. */
        final ArrayList<Name> names = new ArrayList<>(1);
        /** The last name, kept once all names are gone (unlinked but open, or not yet forgotten). */
        Name last;
        long lookups;

        Node(long id, long generation, Name name) {
            this.id = id;
            this.generation = generation;
            this.last = name;
            if (name != null) names.add(name);
        }

        /** Unlinked or replaced: no longer reachable by any name, kept until the kernel forgets it. */
        boolean detached() {
            return names.isEmpty();
        }
    }

    private record Key(long parent, String name) {}

    private final Map<Long, Node> byId = new HashMap<>();
    private final Map<Key, Node> byName = new HashMap<>();
    private final ArrayDeque<Long> freeIds = new ArrayDeque<>();
    private final Map<Long, Long> generations = new HashMap<>();
    private long nextId = LowLevelFileSystem.ROOT_ID + 1;

    NodeTable() {
        Node root = new Node(LowLevelFileSystem.ROOT_ID, 0, null);
        root.lookups = 1; // never forgotten
        byId.put(root.id, root);
    }

    /** The path of node {@code id}; ESTALE if the kernel already forgot it. */
    synchronized String path(long id) {
        return pathOf(node(id));
    }

    /** Whether node {@code id} has lost all its names. */
    synchronized boolean detached(long id) {
        Node n = byId.get(id);
        return n != null && n.id != LowLevelFileSystem.ROOT_ID && n.detached();
    }

    /** The path of {@code name} in directory {@code parent}. */
    synchronized String childPath(long parent, String name) {
        return join(pathOf(node(parent)), name);
    }

    static String join(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
    }

    /** Finds or makes the node for {@code name} in {@code parent} and adds one lookup. */
    synchronized Node ref(long parent, String name) {
        Node n = byName.get(new Key(parent, name));
        if (n == null) {
            long id = freeIds.isEmpty() ? nextId++ : freeIds.poll();
            long gen = generations.merge(id, 1L, Long::sum);
            n = new Node(id, gen, new Name(node(parent), name));
            byId.put(id, n);
            byName.put(new Key(parent, name), n);
        }
        n.lookups++;
        return n;
    }

    /**
     * A hard link {@code name} in {@code parent} to node {@code id} now exists: the same node gets the
     * name, so the kernel sees one inode (nlink, cached pages) under both names. Adds one lookup.
     */
    synchronized Node alias(long id, long parent, String name) {
        Node n = node(id);
        Name nm = new Name(node(parent), name);
        n.names.add(nm);
        n.last = nm;
        byName.put(new Key(parent, name), n);
        n.lookups++;
        return n;
    }

    /** The kernel drops {@code count} lookups of {@code id}; at zero the id is freed. */
    synchronized void forget(long id, long count) {
        Node n = byId.get(id);
        if (n == null || id == LowLevelFileSystem.ROOT_ID) return;
        n.lookups -= count;
        if (n.lookups > 0) return;
        byId.remove(id);
        for (Name nm : n.names) byName.remove(new Key(nm.parent().id, nm.name()), n);
        freeIds.add(id);
    }

    /** {@code name} in {@code parent} was removed: the node loses that name. */
    synchronized void detach(long parent, String name) {
        Node n = byName.remove(new Key(parent, name));
        if (n != null) removeName(n, parent, name);
    }

    private static void removeName(Node n, long parent, String name) {
        n.names.removeIf(nm -> nm.parent().id == parent && nm.name().equals(name));
    }

    /** Moves names after a successful rename; {@code exchange} swaps the two. */
    synchronized void rename(long parent, String name, long newParent, String newName, boolean exchange) {
        Key from = new Key(parent, name), to = new Key(newParent, newName);
        Node moved = byName.remove(from);
        Node replaced = byName.remove(to);
        if (moved == replaced && moved != null) { // two names of one file: rename(2) does nothing
            byName.put(from, moved);
            byName.put(to, moved);
            return;
        }
        if (replaced != null) removeName(replaced, newParent, newName);
        if (moved != null) {
            removeName(moved, parent, name);
            place(moved, newParent, newName);
        }
        if (replaced != null && exchange) place(replaced, parent, name);
    }

    private void place(Node n, long parent, String name) {
        Name nm = new Name(node(parent), name);
        n.names.addFirst(nm);
        n.last = nm;
        byName.put(new Key(parent, name), n);
    }

    /** Forgets everything but the root (session end). */
    synchronized void clear() {
        Node root = byId.get(LowLevelFileSystem.ROOT_ID);
        byId.clear();
        byName.clear();
        byId.put(root.id, root);
    }

    synchronized int size() {
        return byId.size();
    }

    private Node node(long id) {
        Node n = byId.get(id);
        if (n == null) throw new FuseException(Errno.ESTALE);
        return n;
    }

    private static String pathOf(Node n) {
        StringBuilder sb = new StringBuilder();
        for (Name nm = nameOf(n); nm != null; nm = nameOf(nm.parent())) sb.insert(0, nm.name()).insert(0, '/');
        return sb.isEmpty() ? "/" : sb.toString();
    }

    /** The live name that makes the path, or the last one once all are gone; null for the root. */
    private static Name nameOf(Node n) {
        return n.names.isEmpty() ? n.last : n.names.getFirst();
    }
}
