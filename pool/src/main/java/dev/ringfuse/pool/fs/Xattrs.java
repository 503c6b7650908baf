package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import dev.ringfuse.pool.format.NameHash;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Extended attributes under (ino, XATTR, h(name)). Values up to {@link #INLINE} bytes sit in the bucket;
 * larger ones (up to the kernel's XATTR_SIZE_MAX, 64 KiB) in chunks of {@link #CHUNK} bytes under
 * (ino, XATTR_CHUNK, h(name) + 16 × slot + i), the bucket entry naming the slot (distinct per bucket, so
 * colliding names keep apart). Callers hold the pool lock.
 */
final class Xattrs {
    static final int XATTR_CREATE = 1, XATTR_REPLACE = 2;
    static final int XATTR_CHUNK = 49;
    /** Inline values keep a bucket (one B-tree value) small enough for colliding neighbours. */
    static final int INLINE = 4096;
    static final int CHUNK = 7 * 1024;
    static final int MAX_VALUE = 64 * 1024;
    private static final int SLOTS = 16;

    private Xattrs() {}

    private static void checkName(byte[] name) {
        String s = FileNames.decode(name);
        if (!(s.startsWith("user.") || s.startsWith("trusted.") || s.startsWith("security.") || s.startsWith("system."))) {
            throw new FuseException(Errno.EOPNOTSUPP);
        }
        if (name.length > 255) throw new FuseException(Errno.ERANGE);
    }

    static void set(Inodes inodes, Inode n, byte[] name, byte[] value, int flags) throws IOException {
        checkName(name);
        if (value.length > MAX_VALUE) throw new FuseException(Errno.E2BIG);
        Key k = new Key(n.ino, Inodes.XATTR, NameHash.of(name));
        List<Buckets.Xattr> list = Buckets.xattrs(inodes.tree().get(k));
        int at = index(list, name);
        if (at >= 0 && (flags & XATTR_CREATE) != 0) throw new FuseException(Errno.EEXIST);
        if (at < 0 && (flags & XATTR_REPLACE) != 0) throw new FuseException(Errno.ENODATA);
        long h = NameHash.of(name);
        if (at >= 0 && list.get(at).big()) dropChunks(inodes, n, h, list.get(at));
        Buckets.Xattr x = new Buckets.Xattr(name, value);
        if (value.length > INLINE) {
            int slot = freeSlot(list, at);
            x = new Buckets.Xattr(name, null, slot, value.length);
            for (int i = 0; i * CHUNK < value.length; i++) {
                int from = i * CHUNK;
                inodes.tree().put(chunkKey(n, h, slot, i), Arrays.copyOfRange(value, from, Math.min(value.length, from + CHUNK)));
            }
        }
        if (at >= 0) list.set(at, x);
        else list.add(x);
        byte[] enc = Buckets.xattrs(list);
        if (enc.length > BTree.MAX_VALUE) throw new FuseException(Errno.ENOSPC);
        inodes.tree().put(k, enc);
        n.touchTimes(false, true);
        inodes.put(n);
    }

    static byte[] get(Inodes inodes, Inode n, byte[] name) throws IOException {
        byte[] v = getOrNull(inodes, n, name);
        if (v == null) throw new FuseException(Errno.ENODATA);
        return v;
    }

    /** The value, or null when {@code n} has no attribute {@code name}. */
    static byte[] getOrNull(Inodes inodes, Inode n, byte[] name) throws IOException {
        checkName(name);
        List<Buckets.Xattr> list = Buckets.xattrs(inodes.tree().get(new Key(n.ino, Inodes.XATTR, NameHash.of(name))));
        int at = index(list, name);
        if (at < 0) return null;
        Buckets.Xattr x = list.get(at);
        if (!x.big()) return x.value();
        byte[] out = new byte[x.bigLength()];
        long h = NameHash.of(name);
        for (int i = 0; i * CHUNK < out.length; i++) {
            byte[] c = inodes.tree().get(chunkKey(n, h, x.slot(), i));
            int want = Math.min(CHUNK, out.length - i * CHUNK);
            if (c == null || c.length != want) throw new dev.ringfuse.pool.format.FormatException("xattr chunk " + i + " of inode " + n.ino + " missing");
            System.arraycopy(c, 0, out, i * CHUNK, want);
        }
        return out;
    }

    private static Key chunkKey(Inode n, long h, int slot, int i) {
        return new Key(n.ino, XATTR_CHUNK, h + (long) slot * SLOTS + i);
    }

    /** A slot no other out-of-line entry of the bucket uses (entry {@code except} is being replaced). */
    private static int freeSlot(List<Buckets.Xattr> list, int except) {
        boolean[] used = new boolean[SLOTS];
        for (int i = 0; i < list.size(); i++) if (i != except && list.get(i).big()) used[list.get(i).slot()] = true;
        for (int s = 0; s < SLOTS; s++) if (!used[s]) return s;
        throw new FuseException(Errno.ENOSPC);
    }

    private static void dropChunks(Inodes inodes, Inode n, long h, Buckets.Xattr x) throws IOException {
        for (int i = 0; i * CHUNK < x.bigLength(); i++) inodes.tree().delete(chunkKey(n, h, x.slot(), i));
    }

    static List<String> list(Inodes inodes, Inode n) throws IOException {
        List<String> out = new ArrayList<>();
        inodes.tree().scan(Key.first(n.ino, Inodes.XATTR), Key.after(n.ino, Inodes.XATTR), (k, v) -> {
            for (Buckets.Xattr x : Buckets.xattrs(v)) out.add(FileNames.decode(x.name()));
            return true;
        });
        return out;
    }

    static void remove(Inodes inodes, Inode n, byte[] name) throws IOException {
        checkName(name);
        Key k = new Key(n.ino, Inodes.XATTR, NameHash.of(name));
        List<Buckets.Xattr> list = Buckets.xattrs(inodes.tree().get(k));
        int at = index(list, name);
        if (at < 0) throw new FuseException(Errno.ENODATA);
        if (list.get(at).big()) dropChunks(inodes, n, NameHash.of(name), list.get(at));
        list.remove(at);
        if (list.isEmpty()) inodes.tree().delete(k);
        else inodes.tree().put(k, Buckets.xattrs(list));
        n.touchTimes(false, true);
        inodes.put(n);
    }

    private static int index(List<Buckets.Xattr> list, byte[] name) {
        for (int i = 0; i < list.size(); i++) if (Arrays.equals(list.get(i).name(), name)) return i;
        return -1;
    }
}
