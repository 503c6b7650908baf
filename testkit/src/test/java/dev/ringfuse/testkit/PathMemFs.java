package dev.ringfuse.testkit;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.Caller;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.fs.DirFiller;
import dev.ringfuse.fs.FileStat;
import dev.ringfuse.fs.PathFileSystem;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatFs;
import dev.ringfuse.testkit.PathMemNodes.Dir;
import dev.ringfuse.testkit.PathMemNodes.File;
import dev.ringfuse.testkit.PathMemNodes.Node;
import dev.ringfuse.testkit.PathMemNodes.Special;
import dev.ringfuse.testkit.PathMemNodes.Symlink;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small in-memory filesystem written against the path API only, to run the POSIX suite through
 * {@link dev.ringfuse.fs.PathFileSystemAdapter}. One monitor guards everything: simple, and the adapter
 * is what is under test. Permission checks are left to the kernel (default_permissions), POSIX ACLs included:
 * it asks for POSIX_ACL and DONT_MASK and keeps the ACL xattrs with {@link PosixAcl}. No O_TMPFILE: the path
 * API has no call for a file without a path (core/DESIGN.md, "Path API").
 */
final class PathMemFs implements PathFileSystem {
    private static final int S_ISGID = 02000, O_APPEND = 02000, ACCMODE = 3;
    private static final int KEEP_SIZE = 1, PUNCH_HOLE = 2, SEEK_DATA = 3, SEEK_HOLE = 4;
    private static final long CAPACITY_BLOCKS = 1L << 20; // 4 GiB of 4 KiB blocks, for statfs only

    private record Open(Node node, int flags) {}

    private final Dir root = new Dir(1, 0777 | 01000, 0, 0, null);
    private final Map<Long, Open> open = new HashMap<>();
    private long nextIno = 2, nextFh = 1;
    /** POSIX_ACL and DONT_MASK were granted: ACLs are kept and the umask is applied here. */
    private volatile boolean acl;

    // ---- resolution ----

    private Node resolve(String path) {
        Node n = root;
        for (String part : path.split("/")) {
            if (part.isEmpty()) continue;
            if (part.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) throw new FuseException(Errno.ENAMETOOLONG);
            if (!(n instanceof Dir d)) throw new FuseException(Errno.ENOTDIR);
            n = d.children.get(part);
            if (n == null) throw new FuseException(Errno.ENOENT);
        }
        return n;
    }

    private Dir parent(String path) {
        if (!(resolve(path.substring(0, path.lastIndexOf('/'))) instanceof Dir d)) throw new FuseException(Errno.ENOTDIR);
        return d;
    }

    private static String name(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) throw new FuseException(Errno.ENAMETOOLONG);
        return name;
    }

    private Node node(String path, long fh) {
        if (fh != NO_FH) {
            Open o = open.get(fh);
            if (o != null) return o.node();
        }
        return resolve(path);
    }

    private File file(String path, long fh) {
        if (!(node(path, fh) instanceof File f)) throw new FuseException(Errno.EISDIR);
        return f;
    }

    /** The mode and ACLs of a new node of {@code mode} in the parent of {@code path} (symlinks: none). */
    private PosixAcl.Inherited inherited(String path, int mode) {
        if (!acl) return new PosixAcl.Inherited(mode, null, null);
        boolean directory = (mode & FileStat.S_IFMT) == FileStat.S_IFDIR;
        return PosixAcl.inherit(parent(path).xattrs.get(PosixAcl.DEFAULT), mode, PathFileSystem.caller().umask(), directory);
    }

    private static <T extends Node> T withAcls(T n, PosixAcl.Inherited in) {
        if (in.access() != null) n.xattrs.put(PosixAcl.ACCESS, in.access());
        if (in.dflt() != null) n.xattrs.put(PosixAcl.DEFAULT, in.dflt());
        return n;
    }

    /** Adds a new node made by {@code make} under the caller's uid and the right gid. */
    private <T extends Node> T add(String path, java.util.function.Function<Long, T> make) {
        Dir dir = parent(path);
        String name = name(path);
        if (dir.children.containsKey(name)) throw new FuseException(Errno.EEXIST);
        T n = make.apply(nextIno++);
        RequestContext c = PathFileSystem.caller();
        n.uid = c.uid();
        n.gid = (dir.mode & S_ISGID) != 0 ? dir.gid : c.gid();
        dir.children.put(name, n);
        dir.touch();
        return n;
    }

    // ---- PathFileSystem ----

    @Override
    public void init(InitContext init) {
        // the kernel enforces ACLs (default_permissions) and caches them; with DONT_MASK it sends the mode
        // unmasked, so that a parent's default ACL can replace the umask (PosixAcl.inherit)
        acl = init.want(Capability.POSIX_ACL) && init.want(Capability.DONT_MASK);
    }

    @Override
    public synchronized FileStat getattr(String path, long fh) {
        return node(path, fh).stat();
    }

    @Override
    public synchronized String readlink(String path) {
        if (!(resolve(path) instanceof Symlink s)) throw new FuseException(Errno.EINVAL);
        return s.target;
    }

    @Override
    public synchronized void mknod(String path, int mode, int rdev) {
        int type = mode & FileStat.S_IFMT;
        boolean regular = type == FileStat.S_IFREG || type == 0;
        PosixAcl.Inherited in = inherited(path, regular ? FileStat.S_IFREG | (mode & 07777) : mode);
        int m = in.mode();
        withAcls(add(path, ino -> regular ? new File(ino, m, 0, 0) : new Special(ino, m, 0, 0, rdev)), in);
    }

    @Override
    public synchronized void mkdir(String path, int mode) {
        Dir parent = parent(path);
        PosixAcl.Inherited in = inherited(path, FileStat.S_IFDIR | (mode & 07777));
        int m = (parent.mode & S_ISGID) != 0 ? in.mode() | S_ISGID : in.mode();
        withAcls(add(path, ino -> new Dir(ino, m & 07777, 0, 0, parent)), in);
        parent.nlink++;
    }

    @Override
    public synchronized void symlink(String target, String path) {
        add(path, ino -> new Symlink(ino, 0, 0, target));
    }

    @Override
    public synchronized void unlink(String path) {
        Dir dir = parent(path);
        Node n = resolve(path);
        if (n instanceof Dir) throw new FuseException(Errno.EISDIR);
        dir.children.remove(name(path));
        n.nlink--;
        n.ctime = PathMemNodes.now();
        dir.touch();
    }

    @Override
    public synchronized void rmdir(String path) {
        Dir dir = parent(path);
        if (!(resolve(path) instanceof Dir d)) throw new FuseException(Errno.ENOTDIR);
        if (!d.children.isEmpty()) throw new FuseException(Errno.ENOTEMPTY);
        dir.children.remove(name(path));
        d.nlink = 0;
        dir.nlink--;
        dir.touch();
    }

    @Override
    public synchronized void link(String existing, String newPath) {
        Node n = resolve(existing);
        if (n instanceof Dir) throw new FuseException(Errno.EPERM);
        Dir dir = parent(newPath);
        if (dir.children.putIfAbsent(name(newPath), n) != null) throw new FuseException(Errno.EEXIST);
        n.nlink++;
        n.ctime = PathMemNodes.now();
        dir.touch();
    }

    @Override
    public synchronized void rename(String from, String to, int flags) {
        if ((flags & ~3) != 0 || flags == 3) throw new FuseException(Errno.EINVAL);
        Dir fromDir = parent(from), toDir = parent(to);
        Node src = resolve(from);
        Node dst = toDir.children.get(name(to));
        boolean exchange = (flags & 2) != 0;
        if ((flags & 1) != 0 && dst != null) throw new FuseException(Errno.EEXIST);
        if (exchange && dst == null) throw new FuseException(Errno.ENOENT);
        if (src == dst) return; // two names of one file: nothing to do
        if (!exchange && dst != null) {
            if (src instanceof Dir && !(dst instanceof Dir)) throw new FuseException(Errno.ENOTDIR);
            if (!(src instanceof Dir) && dst instanceof Dir) throw new FuseException(Errno.EISDIR);
            if (dst instanceof Dir d && !d.children.isEmpty()) throw new FuseException(Errno.ENOTEMPTY);
        }
        fromDir.children.remove(name(from));
        if (exchange) {
            fromDir.children.put(name(from), dst);
            moved(dst, toDir, fromDir);
        } else if (dst != null) {
            dst.nlink -= dst instanceof Dir ? 2 : 1;
            dst.ctime = PathMemNodes.now();
            if (dst instanceof Dir) toDir.nlink--;
        }
        toDir.children.put(name(to), src);
        moved(src, fromDir, toDir);
        src.ctime = PathMemNodes.now();
        fromDir.touch();
        toDir.touch();
    }

    private static void moved(Node n, Dir from, Dir to) {
        n.ctime = PathMemNodes.now();
        if (n instanceof Dir d && from != to) {
            d.parent = to;
            from.nlink--;
            to.nlink++;
        }
    }

    @Override
    public synchronized void chmod(String path, int mode, long fh) {
        Node n = node(path, fh);
        n.mode = (n.mode & FileStat.S_IFMT) | (mode & 07777);
        // chmod rewrites the access ACL's owner, mask-or-group and other entries (the kernel leaves it to us)
        byte[] a = n.xattrs.get(PosixAcl.ACCESS);
        if (a != null) n.xattrs.put(PosixAcl.ACCESS, PosixAcl.afterChmod(a, n.mode));
        n.ctime = PathMemNodes.now();
    }

    @Override
    public synchronized void chown(String path, int uid, int gid, long fh) {
        Node n = node(path, fh);
        if (uid != -1) n.uid = uid;
        if (gid != -1) n.gid = gid;
        n.ctime = PathMemNodes.now();
    }

    @Override
    public synchronized void truncate(String path, long size, long fh) {
        file(path, fh).truncate(size);
    }

    @Override
    public synchronized void utimens(String path, long atimeSec, int atimeNsec, long mtimeSec, int mtimeNsec, long fh) {
        Node n = node(path, fh);
        n.atime = Node.time(n.atime, atimeSec, atimeNsec);
        n.mtime = Node.time(n.mtime, mtimeSec, mtimeNsec);
        n.ctime = PathMemNodes.now();
    }

    @Override
    public synchronized long open(String path, int flags) {
        long fh = nextFh++;
        open.put(fh, new Open(resolve(path), flags));
        return fh;
    }

    @Override
    public synchronized long create(String path, int mode, int flags) {
        PosixAcl.Inherited in = inherited(path, FileStat.S_IFREG | (mode & 07777));
        File f = withAcls(add(path, ino -> new File(ino, in.mode(), 0, 0)), in);
        long fh = nextFh++;
        open.put(fh, new Open(f, flags));
        return fh;
    }

    @Override
    public synchronized int read(String path, MemorySegment buf, long offset, long fh) {
        return file(path, fh).read(buf, offset);
    }

    @Override
    public synchronized int write(String path, MemorySegment data, long offset, long fh) {
        File f = file(path, fh);
        Open o = open.get(fh);
        // without the writeback cache the kernel leaves O_APPEND's "at the end" to the filesystem
        f.write(data, o != null && (o.flags() & O_APPEND) != 0 ? f.size : offset);
        return (int) data.byteSize();
    }

    @Override
    public void flush(String path, long fh) {}

    @Override
    public synchronized void release(String path, long fh, int flags) {
        open.remove(fh);
    }

    @Override
    public void fsync(String path, boolean datasync, long fh) {}

    @Override
    public synchronized StatFs statfs(String path) {
        long used = 0, files = 0;
        List<Node> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            Node n = todo.removeLast();
            files++;
            used += n.blocks() / 8;
            if (n instanceof Dir d) todo.addAll(d.children.values());
        }
        long free = Math.max(0, CAPACITY_BLOCKS - used);
        return new StatFs(CAPACITY_BLOCKS, free, free, CAPACITY_BLOCKS, CAPACITY_BLOCKS - files, 4096, 255, 4096);
    }

    @Override
    public synchronized void setxattr(String path, String name, byte[] value, int flags) {
        Node n = resolve(path);
        boolean exists = n.xattrs.containsKey(name);
        if ((flags & 1) != 0 && exists) throw new FuseException(Errno.EEXIST);
        if ((flags & 2) != 0 && !exists) throw new FuseException(Errno.ENODATA);
        if (PosixAcl.isAcl(name)) {
            // the mode follows an access ACL; one that says no more than a mode is kept as the mode alone
            RequestContext c = PathFileSystem.caller();
            PosixAcl.Update u = PosixAcl.set(name, value, n.mode, n instanceof Dir, c.uid() == 0 || Caller.of(c).inGroup(n.gid));
            if (u.value() != null) n.xattrs.put(name, u.value());
            else n.xattrs.remove(name);
            n.mode = u.mode();
        } else {
            n.xattrs.put(name, value);
        }
        n.ctime = PathMemNodes.now();
    }

    @Override
    public synchronized byte[] getxattr(String path, String name) {
        byte[] v = resolve(path).xattrs.get(name);
        if (v == null) throw new FuseException(Errno.ENODATA);
        return v;
    }

    @Override
    public synchronized List<String> listxattr(String path) {
        return List.copyOf(resolve(path).xattrs.keySet());
    }

    @Override
    public synchronized void removexattr(String path, String name) {
        Node n = resolve(path);
        if (n.xattrs.remove(name) == null) throw new FuseException(Errno.ENODATA);
        n.ctime = PathMemNodes.now();
    }

    /** Mode 0 and KEEP_SIZE allocate the chunks of the range, PUNCH_HOLE|KEEP_SIZE frees or zeroes them. */
    @Override
    public synchronized void fallocate(String path, int mode, long offset, long length, long fh) {
        File f = file(path, fh);
        if (offset < 0 || length <= 0) throw new FuseException(Errno.EINVAL);
        switch (mode) {
            case 0, KEEP_SIZE -> {
                if (length > statfs(path).bavail() * 4096) throw new FuseException(Errno.ENOSPC);
                f.allocate(offset, length, mode == 0);
            }
            case PUNCH_HOLE | KEEP_SIZE -> f.punch(offset, length);
            default -> throw new FuseException(Errno.EOPNOTSUPP);
        }
    }

    /** SEEK_DATA / SEEK_HOLE at chunk granularity: a chunk present is data, a missing one a hole. */
    @Override
    public synchronized long lseek(String path, long offset, int whence, long fh) {
        File f = file(path, fh);
        if (whence != SEEK_DATA && whence != SEEK_HOLE) throw new FuseException(Errno.EINVAL);
        long r = offset < 0 || offset >= f.size ? -1 : whence == SEEK_DATA ? f.nextData(offset) : f.nextHole(offset);
        if (r < 0) throw new FuseException(Errno.ENXIO);
        return r;
    }

    @Override
    public synchronized void readdir(String path, DirFiller filler, long fh) {
        if (!(resolve(path) instanceof Dir d)) throw new FuseException(Errno.ENOTDIR);
        d.children.forEach((name, n) -> filler.add(name, n.stat()));
    }
}
