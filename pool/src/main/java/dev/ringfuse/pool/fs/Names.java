package dev.ringfuse.pool.fs;

import dev.ringfuse.pool.format.NameHash;
import dev.ringfuse.pool.tree.Key;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Directory entries under (dir, DIRENT, h(name)): buckets of entries whose names share a hash. The readdir
 * cookie of an entry is {@code h | index-in-bucket}; cookies below 0x100 are "." (1) and ".." (2).
 * Callers hold the pool lock.
 */
final class Names {
    /** Receives one entry and its cookie; return false to stop. */
    interface Visitor {
        boolean visit(Buckets.Dirent d, long cookie) throws IOException;
    }

    private final Inodes inodes;

    Names(Inodes inodes) {
        this.inodes = inodes;
    }

    private static Key key(long dir, byte[] name) {
        return new Key(dir, Inodes.DIRENT, NameHash.of(name));
    }

    Buckets.Dirent find(long dir, byte[] name) throws IOException {
        for (Buckets.Dirent d : Buckets.dirents(inodes.tree().get(key(dir, name)))) {
            if (Arrays.equals(d.name(), name)) return d;
        }
        return null;
    }

    void add(long dir, byte[] name, long ino, int mode) throws IOException {
        Key k = key(dir, name);
        List<Buckets.Dirent> list = Buckets.dirents(inodes.tree().get(k));
        if (list.size() >= 255) throw new dev.ringfuse.FuseException(dev.ringfuse.Errno.ENOSPC);
        list.add(new Buckets.Dirent(name, ino, (mode >>> 12) & 15));
        inodes.tree().put(k, Buckets.dirents(list));
    }

    /** Points an existing name at another inode (rename over a target). */
    void replace(long dir, byte[] name, long ino, int mode) throws IOException {
        Key k = key(dir, name);
        List<Buckets.Dirent> list = Buckets.dirents(inodes.tree().get(k));
        for (int i = 0; i < list.size(); i++) {
            if (Arrays.equals(list.get(i).name(), name)) list.set(i, new Buckets.Dirent(name, ino, (mode >>> 12) & 15));
        }
        inodes.tree().put(k, Buckets.dirents(list));
    }

    void remove(long dir, byte[] name) throws IOException {
        Key k = key(dir, name);
        List<Buckets.Dirent> list = Buckets.dirents(inodes.tree().get(k));
        list.removeIf(d -> Arrays.equals(d.name(), name));
        if (list.isEmpty()) inodes.tree().delete(k);
        else inodes.tree().put(k, Buckets.dirents(list));
    }

    boolean isEmpty(long dir) throws IOException {
        boolean[] any = {false};
        inodes.tree().scan(Key.first(dir, Inodes.DIRENT), Key.after(dir, Inodes.DIRENT), (k, v) -> {
            any[0] = true;
            return false;
        });
        return !any[0];
    }

    /** Entries after {@code cookie}, in cookie order. */
    void after(long dir, long cookie, Visitor v) throws IOException {
        long bucket = Long.compareUnsigned(cookie, 0x100) < 0 ? 0 : cookie & ~0xFFL;
        int skip = Long.compareUnsigned(cookie, 0x100) < 0 ? -1 : (int) (cookie & 0xFF);
        inodes.tree().scan(new Key(dir, Inodes.DIRENT, bucket), Key.after(dir, Inodes.DIRENT), (k, val) -> {
            List<Buckets.Dirent> list = Buckets.dirents(val);
            for (int i = 0; i < list.size(); i++) {
                if (k.off() == bucket && i <= skip) continue;
                if (!v.visit(list.get(i), k.off() | i)) return false;
            }
            return true;
        });
    }
}
