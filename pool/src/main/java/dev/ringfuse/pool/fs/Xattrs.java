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

/** Extended attributes under (ino, XATTR, h(name)). Callers hold the pool lock. */
final class Xattrs {
    static final int XATTR_CREATE = 1, XATTR_REPLACE = 2;
    /** Bucket values live in one B-tree value; keep room for a colliding neighbour. */
    static final int MAX_VALUE = BTree.MAX_VALUE - 512;

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
        if (at >= 0) list.set(at, new Buckets.Xattr(name, value));
        else list.add(new Buckets.Xattr(name, value));
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
        return at < 0 ? null : list.get(at).value();
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
