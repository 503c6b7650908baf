package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.io.IOException;

/** rename(2) and renameat2 (NOREPLACE, EXCHANGE) on the pool's directories. Callers hold the pool lock. */
final class Renames {
    static final int NOREPLACE = 1, EXCHANGE = 2;

    private Renames() {}

    static void rename(PoolFs fs, Inode from, byte[] name, Inode to, byte[] newName, int flags) throws IOException {
        if ((flags & ~(NOREPLACE | EXCHANGE)) != 0 || flags == (NOREPLACE | EXCHANGE)) throw new FuseException(Errno.EINVAL);
        if (newName.length > 255) throw new FuseException(Errno.ENAMETOOLONG);
        Buckets.Dirent src = fs.names.find(from.ino, name);
        if (src == null) throw new FuseException(Errno.ENOENT);
        Inode s = fs.inodes.require(src.ino());
        Buckets.Dirent dst = fs.names.find(to.ino, newName);
        if (s.isDir() && isAncestor(fs, s.ino, to.ino)) throw new FuseException(Errno.EINVAL);
        if ((flags & EXCHANGE) != 0) {
            if (dst == null) throw new FuseException(Errno.ENOENT);
            Inode d = fs.inodes.require(dst.ino());
            if (d.isDir() && isAncestor(fs, d.ino, from.ino)) throw new FuseException(Errno.EINVAL);
            fs.names.replace(from.ino, name, d.ino, d.mode);
            fs.names.replace(to.ino, newName, s.ino, s.mode);
            if (s.isDir() != d.isDir() && from.ino != to.ino) {
                int delta = s.isDir() ? 1 : -1;
                from.nlink -= delta;
                to.nlink += delta;
            }
            s.parent = to.ino;
            d.parent = from.ino;
            s.touchTimes(false, true);
            d.touchTimes(false, true);
            fs.inodes.put(s);
            fs.inodes.put(d);
            finish(fs, from, to);
            return;
        }
        if (dst != null) {
            if (dst.ino() == s.ino) return; // same inode: nothing to do (POSIX)
            if ((flags & NOREPLACE) != 0) throw new FuseException(Errno.EEXIST);
            Inode d = fs.inodes.require(dst.ino());
            if (s.isDir() && !d.isDir()) throw new FuseException(Errno.ENOTDIR);
            if (!s.isDir() && d.isDir()) throw new FuseException(Errno.EISDIR);
            if (d.isDir() && !fs.names.isEmpty(d.ino)) throw new FuseException(Errno.ENOTEMPTY);
            fs.names.replace(to.ino, newName, s.ino, s.mode);
            if (d.isDir()) to.nlink--;
            fs.dropLink(d);
        } else {
            fs.names.add(to.ino, newName, s.ino, s.mode);
        }
        fs.names.remove(from.ino, name);
        if (s.isDir() && from.ino != to.ino) {
            from.nlink--;
            to.nlink++;
        }
        s.parent = s.isDir() ? to.ino : s.parent;
        s.touchTimes(false, true);
        fs.inodes.put(s);
        finish(fs, from, to);
    }

    private static void finish(PoolFs fs, Inode from, Inode to) throws IOException {
        if (from == to) {
            from.touchTimes(true, true);
            fs.inodes.put(from);
            return;
        }
        from.touchTimes(true, true);
        to.touchTimes(true, true);
        fs.inodes.put(from);
        fs.inodes.put(to);
    }

    /** True when {@code dir} is {@code candidate} or one of its ancestors. */
    private static boolean isAncestor(PoolFs fs, long candidate, long dir) throws IOException {
        long cur = dir;
        for (int depth = 0; depth < 100_000; depth++) {
            if (cur == candidate) return true;
            if (cur == Inodes.ROOT) return false;
            Inode n = fs.inodes.require(cur);
            cur = n.parent;
        }
        return false;
    }
}
