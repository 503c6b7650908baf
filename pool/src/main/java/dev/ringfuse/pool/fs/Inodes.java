package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Dataset;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Inodes of one dataset in its tree, inode number allocation (the META record), the kernel's lookup counts,
 * and the orphan set: inodes unlinked while still known to the kernel, kept under (0, ORPHAN, ino) so that
 * an import after a crash frees them. Callers hold the pool lock.
 */
final class Inodes {
    static final int META = 1, ORPHAN = 2, INODE = 16, DIRENT = 32, XATTR = 48, SYMLINK = 64;
    static final long ROOT = 1;
    private final Dataset ds;
    private final Map<Long, Long> lookups = new HashMap<>();

    Inodes(Dataset ds) {
        this.ds = ds;
    }

    BTree tree() { return ds.tree(); }

    Inode get(long ino) throws IOException {
        byte[] v = tree().get(new Key(ino, INODE, 0));
        return v == null ? null : Inode.decode(ino, v);
    }

    /** The inode, or ENOENT (a node id the kernel still holds but that is gone: ESTALE). */
    Inode require(long ino) throws IOException {
        Inode n = get(ino);
        if (n == null) throw new FuseException(Errno.ESTALE);
        return n;
    }

    void put(Inode n) throws IOException {
        tree().put(new Key(n.ino, INODE, 0), n.encode());
        ds.pool().dirty();
    }

    private static final Key COUNTERS = new Key(0, META, 0);

    /** The next inode number and generation, as stored. */
    private ByteBuffer counters() throws IOException {
        byte[] v = tree().get(COUNTERS);
        return v == null ? ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 2).putLong(8, 1)
                : ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The next inode number and generation, to hand to {@link #keepCountersAtLeast} after a rollback. */
    long[] nextNumbers() throws IOException {
        ByteBuffer b = counters();
        return new long[] {b.getLong(0), b.getLong(8)};
    }

    /**
     * A rollback brings back the snapshot's counters, but the kernel may still hold inodes numbered after
     * them (open files, lookups): numbers are never handed out twice.
     */
    void keepCountersAtLeast(long[] next) throws IOException {
        ByteBuffer b = counters();
        if (b.getLong(0) >= next[0] && b.getLong(8) >= next[1]) return;
        b.putLong(0, Math.max(b.getLong(0), next[0])).putLong(8, Math.max(b.getLong(8), next[1]));
        tree().put(COUNTERS, b.array());
        ds.pool().dirty();
    }

    /** A new inode number and generation. */
    Inode allocate(int mode, int uid, int gid) throws IOException {
        ByteBuffer b = counters();
        long ino = b.getLong(0), gen = b.getLong(8);
        b.putLong(0, ino + 1).putLong(8, gen + 1);
        tree().put(COUNTERS, b.array());
        Inode n = new Inode(ino);
        n.mode = mode;
        n.uid = uid;
        n.gid = gid;
        n.nlink = 1;
        n.generation = gen;
        n.initTimes();
        return n;
    }

    void lookedUp(long ino) {
        if (ino != ROOT) lookups.merge(ino, 1L, Long::sum);
    }

    /** Every inode the kernel holds a lookup on (the root is always held). */
    java.util.Set<Long> knownInodes() {
        java.util.Set<Long> out = new java.util.HashSet<>(lookups.keySet());
        out.add(ROOT);
        return out;
    }

    boolean known(long ino) {
        return lookups.containsKey(ino);
    }

    /** Drops {@code n} lookups; returns true when the kernel forgot the inode entirely. */
    boolean forget(long ino, long n) {
        Long c = lookups.get(ino);
        if (c == null) return false;
        if (c - n <= 0) {
            lookups.remove(ino);
            return true;
        }
        lookups.put(ino, c - n);
        return false;
    }

    void addOrphan(long ino) throws IOException {
        tree().put(new Key(0, ORPHAN, ino), new byte[0]);
    }

    void removeOrphan(long ino) throws IOException {
        tree().delete(new Key(0, ORPHAN, ino));
    }

    List<Long> orphans() throws IOException {
        List<Long> out = new ArrayList<>();
        tree().scan(Key.first(0, ORPHAN), Key.after(0, ORPHAN), (k, v) -> out.add(k.off()));
        return out;
    }

    /** Deletes every key of {@code ino} except file data (freed separately). */
    void deleteAll(long ino) throws IOException {
        List<Key> keys = new ArrayList<>();
        tree().scan(Key.first(ino, 0), Key.first(ino + 1, 0), (k, v) -> keys.add(k));
        for (Key k : keys) tree().delete(k);
        ds.pool().dirty();
    }
}
