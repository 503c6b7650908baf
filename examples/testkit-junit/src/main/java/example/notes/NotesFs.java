package example.notes;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.DirFiller;
import dev.ringfuse.fs.FileStat;
import dev.ringfuse.fs.PathFileSystem;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatFs;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * "Your own filesystem": notes kept the way a key-value store would keep them, in one sorted map from
 * absolute path to entry. A directory is an entry too, and its contents are the keys that start with its
 * path and a slash, so renaming a directory moves a range of keys. Written against ringfuse's public path
 * API only (mount it with {@link dev.ringfuse.fs.PathFileSystemAdapter}); one monitor guards everything;
 * permission checks are left to the kernel (default_permissions).
 *
 * <p>Deliberately small: a file is one byte array (at most {@link #MAX_FILE} bytes, EFBIG beyond), and
 * there are no extended attributes (ENOSYS) or RENAME_EXCHANGE (EINVAL). The scenario suite is told so in
 * {@code NotesFsScenariosTest.features()}.
 */
public final class NotesFs implements PathFileSystem {
    /** The largest file this filesystem holds. */
    public static final int MAX_FILE = 64 << 20;
    private static final int S_ISGID = 02000, O_APPEND = 02000, NAME_MAX = 255;
    private static final int RENAME_NOREPLACE = 1;
    private static final long CAPACITY = 1L << 32; // what statfs reports as the size of the filesystem

    /** One file, directory, symlink or special file. Open handles point at it directly, so it outlives its unlink. */
    private static final class Entry {
        final long ino;
        int mode, uid, gid;
        int links = 1; // 0 once unlinked (a file still open)
        int subdirs; // directories: how many of the children are directories (st_nlink = 2 + subdirs)
        long atime = now(), mtime = atime, ctime = atime;
        byte[] data = new byte[0];
        int size;
        String target; // symlinks
        int rdev; // device nodes

        Entry(long ino, int mode) {
            this.ino = ino;
            this.mode = mode;
        }

        boolean isDir() { return (mode & FileStat.S_IFMT) == FileStat.S_IFDIR; }

        long length() {
            return isDir() ? 4096 : target != null ? target.getBytes(StandardCharsets.UTF_8).length : size;
        }

        FileStat stat() {
            long len = length();
            return new FileStat().ino(ino).mode(mode).nlink(isDir() ? 2 + subdirs : links).uid(uid).gid(gid).rdev(rdev)
                    .size(len).blocks((len + 511) / 512).atime(atime / NS, (int) (atime % NS))
                    .mtime(mtime / NS, (int) (mtime % NS)).ctime(ctime / NS, (int) (ctime % NS));
        }
    }

    private static final long NS = 1_000_000_000L;
    private final TreeMap<String, Entry> entries = new TreeMap<>();
    private final Map<Long, Entry> handles = new HashMap<>();
    private long nextIno = 2, nextFh = 1;

    /** An empty filesystem: the root directory, world-writable with the sticky bit like /tmp. */
    public NotesFs() {
        entries.put("/", new Entry(1, FileStat.S_IFDIR | 01777));
    }

    private static long now() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * NS + i.getNano();
    }

    // ---- paths and keys ----

    private static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    /** The keys strictly below a directory: from "dir/" up to "dir0" ('0' sorts right after '/'). */
    private SortedMap<String, Entry> below(String dir) {
        return dir.equals("/") ? entries.tailMap("/", false) : entries.subMap(dir + "/", dir + "0");
    }

    private static String checked(String path) {
        if (path.substring(path.lastIndexOf('/') + 1).getBytes(StandardCharsets.UTF_8).length > NAME_MAX) {
            throw new FuseException(Errno.ENAMETOOLONG);
        }
        return path;
    }

    private Entry get(String path) {
        Entry e = entries.get(checked(path));
        if (e == null) throw new FuseException(Errno.ENOENT);
        return e;
    }

    private Entry entry(String path, long fh) {
        Entry open = fh == NO_FH ? null : handles.get(fh);
        return open != null ? open : get(path);
    }

    private Entry file(String path, long fh) {
        Entry e = entry(path, fh);
        if (e.isDir()) throw new FuseException(Errno.EISDIR);
        return e;
    }

    private Entry dir(String path) {
        Entry e = get(path);
        if (!e.isDir()) throw new FuseException(Errno.ENOTDIR);
        return e;
    }

    /** Makes a new entry at {@code path}, owned by the caller; the group comes from a set-group-ID parent. */
    private Entry add(String path, int mode) {
        Entry parent = dir(parentOf(path));
        if (entries.containsKey(checked(path))) throw new FuseException(Errno.EEXIST);
        Entry e = new Entry(nextIno++, mode);
        RequestContext caller = PathFileSystem.caller();
        e.uid = caller.uid();
        e.gid = (parent.mode & S_ISGID) != 0 ? parent.gid : caller.gid();
        if (e.isDir() && (parent.mode & S_ISGID) != 0) e.mode |= S_ISGID;
        if (e.isDir()) parent.subdirs++;
        entries.put(path, e);
        touch(parent);
        return e;
    }

    /** Removes the key {@code path} (and, for a directory, nothing else: it is empty). */
    private void drop(String path, Entry e) {
        entries.remove(path);
        Entry parent = entries.get(parentOf(path));
        if (e.isDir()) parent.subdirs--;
        e.links = e.isDir() ? 0 : e.links - 1;
        e.ctime = now();
        touch(parent);
    }

    private static void touch(Entry dir) {
        dir.mtime = dir.ctime = now();
    }

    // ---- PathFileSystem ----

    @Override
    public synchronized FileStat getattr(String path, long fh) {
        return entry(path, fh).stat();
    }

    @Override
    public synchronized String readlink(String path) {
        String target = get(path).target;
        if (target == null) throw new FuseException(Errno.EINVAL);
        return target;
    }

    @Override
    public synchronized void mknod(String path, int mode, int rdev) {
        // fifos, sockets and device nodes are only a mode and a number here: the kernel does their I/O
        int type = mode & FileStat.S_IFMT;
        add(path, (type == 0 ? FileStat.S_IFREG : type) | (mode & 07777)).rdev = rdev;
    }

    @Override
    public synchronized void mkdir(String path, int mode) {
        add(path, FileStat.S_IFDIR | (mode & 07777));
    }

    @Override
    public synchronized void symlink(String target, String path) {
        add(path, FileStat.S_IFLNK | 0777).target = target;
    }

    @Override
    public synchronized void link(String existing, String newPath) {
        Entry e = get(existing);
        if (e.isDir()) throw new FuseException(Errno.EPERM);
        Entry parent = dir(parentOf(newPath));
        if (entries.putIfAbsent(checked(newPath), e) != null) throw new FuseException(Errno.EEXIST);
        e.links++; // two keys, one entry
        e.ctime = now();
        touch(parent);
    }

    @Override
    public synchronized void unlink(String path) {
        Entry e = get(path);
        if (e.isDir()) throw new FuseException(Errno.EISDIR);
        drop(path, e);
    }

    @Override
    public synchronized void rmdir(String path) {
        Entry e = dir(path);
        if (!below(path).isEmpty()) throw new FuseException(Errno.ENOTEMPTY);
        drop(path, e);
    }

    @Override
    public synchronized void rename(String from, String to, int flags) {
        if ((flags & ~RENAME_NOREPLACE) != 0) throw new FuseException(Errno.EINVAL); // no RENAME_EXCHANGE
        Entry src = get(from), dst = entries.get(checked(to));
        Entry toParent = dir(parentOf(to));
        if (dst != null && (flags & RENAME_NOREPLACE) != 0) throw new FuseException(Errno.EEXIST);
        if (src == dst) return;
        if (dst != null) {
            if (src.isDir() && !dst.isDir()) throw new FuseException(Errno.ENOTDIR);
            if (!src.isDir() && dst.isDir()) throw new FuseException(Errno.EISDIR);
            if (dst.isDir() && !below(to).isEmpty()) throw new FuseException(Errno.ENOTEMPTY);
            drop(to, dst);
        }
        // the entry and, for a directory, every key below it move to the new prefix
        Map<String, Entry> moved = new TreeMap<>(below(from));
        below(from).clear();
        entries.remove(from);
        Entry fromParent = entries.get(parentOf(from));
        if (src.isDir()) {
            fromParent.subdirs--;
            toParent.subdirs++;
        }
        entries.put(to, src);
        moved.forEach((key, e) -> entries.put(to + key.substring(from.length()), e));
        src.ctime = now();
        touch(fromParent);
        touch(toParent);
    }

    @Override
    public synchronized void chmod(String path, int mode, long fh) {
        Entry e = entry(path, fh);
        e.mode = (e.mode & FileStat.S_IFMT) | (mode & 07777);
        e.ctime = now();
    }

    @Override
    public synchronized void chown(String path, int uid, int gid, long fh) {
        Entry e = entry(path, fh);
        if (uid != -1) e.uid = uid;
        if (gid != -1) e.gid = gid;
        e.ctime = now();
    }

    @Override
    public synchronized void truncate(String path, long size, long fh) {
        Entry f = file(path, fh);
        if (size > MAX_FILE) throw new FuseException(Errno.EFBIG);
        if (size < f.size) Arrays.fill(f.data, (int) size, f.size, (byte) 0); // a later extension reads zeros
        else ensure(f, (int) size);
        f.size = (int) size;
        f.mtime = f.ctime = now();
    }

    @Override
    public synchronized void utimens(String path, long atimeSec, int atimeNsec, long mtimeSec, int mtimeNsec, long fh) {
        Entry e = entry(path, fh);
        e.atime = time(e.atime, atimeSec, atimeNsec);
        e.mtime = time(e.mtime, mtimeSec, mtimeNsec);
        e.ctime = now();
    }

    private static long time(long old, long sec, int nsec) {
        return nsec == UTIME_OMIT ? old : nsec == UTIME_NOW ? now() : sec * NS + nsec;
    }

    @Override
    public synchronized long open(String path, int flags) {
        return handle(get(path), flags);
    }

    @Override
    public synchronized long create(String path, int mode, int flags) {
        return handle(add(path, FileStat.S_IFREG | (mode & 07777)), flags);
    }

    // the handle number carries O_APPEND in its lowest bit: the kernel leaves appending to the filesystem
    // when there is no writeback cache
    private long handle(Entry e, int flags) {
        long fh = (nextFh++ << 1) | ((flags & O_APPEND) != 0 ? 1 : 0);
        handles.put(fh, e);
        return fh;
    }

    @Override
    public synchronized int read(String path, MemorySegment buf, long offset, long fh) {
        Entry f = file(path, fh);
        int n = (int) Math.max(0, Math.min(buf.byteSize(), f.size - offset));
        if (n > 0) MemorySegment.copy(MemorySegment.ofArray(f.data), offset, buf, 0, n);
        return n;
    }

    @Override
    public synchronized int write(String path, MemorySegment data, long offset, long fh) {
        Entry f = file(path, fh);
        long at = (fh & 1) != 0 && fh != NO_FH ? f.size : offset;
        long end = at + data.byteSize();
        if (end > MAX_FILE) throw new FuseException(Errno.EFBIG);
        ensure(f, (int) end);
        MemorySegment.copy(data, 0, MemorySegment.ofArray(f.data), at, data.byteSize());
        f.size = Math.max(f.size, (int) end);
        f.mtime = f.ctime = now();
        return (int) data.byteSize();
    }

    /** Grows the array to hold {@code size} bytes, doubling so that appends cost amortized O(1). */
    private static void ensure(Entry f, int size) {
        if (size > f.data.length) f.data = Arrays.copyOf(f.data, Math.max(size, Math.min(MAX_FILE, 2 * f.data.length)));
    }

    @Override
    public void flush(String path, long fh) {}

    @Override
    public void fsync(String path, boolean datasync, long fh) {}

    @Override
    public synchronized void release(String path, long fh, int flags) {
        handles.remove(fh);
    }

    @Override
    public synchronized StatFs statfs(String path) {
        long used = 0;
        for (Entry e : entries.values()) used += (e.length() + 4095) / 4096;
        long blocks = CAPACITY / 4096, free = Math.max(0, blocks - used);
        return new StatFs(blocks, free, free, blocks, blocks - entries.size(), 4096, NAME_MAX, 4096);
    }

    @Override
    public synchronized void readdir(String path, DirFiller filler, long fh) {
        dir(path);
        String prefix = path.equals("/") ? "/" : path + "/";
        for (Map.Entry<String, Entry> child : below(path).entrySet()) {
            String name = child.getKey().substring(prefix.length());
            if (name.indexOf('/') < 0) filler.add(name, child.getValue().stat()); // a child, not a grandchild
        }
    }
}
