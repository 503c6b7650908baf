package dev.ringfuse.bench.peers.jnr;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import jnr.ffi.Pointer;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * The jnr-fuse peer of the fio benchmark: a memory filesystem on jnr-fuse's path API (libfuse 2 high level).
 * Usage: {@code java -cp ... JnrMemFs <mountpoint> [fuse options...]}; serves until SIGTERM.
 *
 * <p>File data lives in fixed 64 KiB chunks so that appending never copies what is already written (a
 * buffer that grows by copying on each write makes laying out a 128 MiB file quadratic). Names live in one
 * map from absolute path to node; a directory keeps its children's names sorted for readdir. One lock guards
 * the namespace, each file's monitor guards its data: simple and enough for a benchmark peer.
 */
public final class JnrMemFs extends FuseStubFS {
    private static final int CHUNK = 64 * 1024;

    private abstract static sealed class Node permits Dir, File {
        volatile long mode;
        volatile long mtimeNanos = System.currentTimeMillis() * 1_000_000L;
    }

    private static final class Dir extends Node {
        final TreeMap<String, Node> children = new TreeMap<>();
    }

    private static final class File extends Node {
        byte[][] chunks = new byte[0][];
        long size;

        synchronized int read(Pointer buf, long len, long off) {
            if (off >= size) return 0;
            int n = (int) Math.min(len, size - off);
            int done = 0;
            while (done < n) {
                long pos = off + done;
                int ci = (int) (pos / CHUNK), co = (int) (pos % CHUNK);
                int step = Math.min(n - done, CHUNK - co);
                byte[] c = chunks[ci];
                if (c == null) {
                    buf.put(done, new byte[step], 0, step); // a hole reads as zeros
                } else {
                    buf.put(done, c, co, step);
                }
                done += step;
            }
            return n;
        }

        synchronized int write(Pointer buf, long len, long off) {
            ensureChunks(off + len);
            int done = 0;
            while (done < len) {
                long pos = off + done;
                int ci = (int) (pos / CHUNK), co = (int) (pos % CHUNK);
                int step = (int) Math.min(len - done, CHUNK - co);
                if (chunks[ci] == null) chunks[ci] = new byte[CHUNK];
                buf.get(done, chunks[ci], co, step);
                done += step;
            }
            size = Math.max(size, off + len);
            mtimeNanos = System.currentTimeMillis() * 1_000_000L;
            return (int) len;
        }

        synchronized void truncate(long newSize) {
            ensureChunks(newSize);
            int keep = (int) ((newSize + CHUNK - 1) / CHUNK);
            for (int i = keep; i < chunks.length; i++) chunks[i] = null;
            if (newSize < size && newSize % CHUNK != 0 && chunks[keep - 1] != null) {
                java.util.Arrays.fill(chunks[keep - 1], (int) (newSize % CHUNK), CHUNK, (byte) 0);
            }
            size = newSize;
        }

        private void ensureChunks(long end) {
            int need = (int) ((end + CHUNK - 1) / CHUNK);
            if (need > chunks.length) {
                // geometric growth of the chunk index: amortised O(1) per appended chunk
                chunks = java.util.Arrays.copyOf(chunks, Math.max(need, chunks.length * 2));
            }
        }
    }

    private final Map<String, Node> nodes = new ConcurrentHashMap<>();
    private final Object namespace = new Object();

    public JnrMemFs() {
        Dir root = new Dir();
        root.mode = FileStat.S_IFDIR | 0755;
        nodes.put("/", root);
    }

    private static String parent(String path) {
        int i = path.lastIndexOf('/');
        return i <= 0 ? "/" : path.substring(0, i);
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    @Override
    public int getattr(String path, FileStat stat) {
        Node n = nodes.get(path);
        if (n == null) return -ErrorCodes.ENOENT();
        stat.st_mode.set(n.mode);
        stat.st_uid.set(getContext().uid.get());
        stat.st_gid.set(getContext().gid.get());
        stat.st_mtim.tv_sec.set(n.mtimeNanos / 1_000_000_000L);
        stat.st_mtim.tv_nsec.set(n.mtimeNanos % 1_000_000_000L);
        if (n instanceof File f) {
            long size;
            synchronized (f) {
                size = f.size;
            }
            stat.st_size.set(size);
            stat.st_nlink.set(1);
            stat.st_blocks.set((size + 511) / 512);
        } else {
            stat.st_nlink.set(2);
        }
        return 0;
    }

    private int add(String path, Node node) {
        synchronized (namespace) {
            if (nodes.containsKey(path)) return -ErrorCodes.EEXIST();
            if (!(nodes.get(parent(path)) instanceof Dir d)) return -ErrorCodes.ENOENT();
            d.children.put(name(path), node);
            nodes.put(path, node);
            return 0;
        }
    }

    @Override
    public int create(String path, long mode, FuseFileInfo fi) {
        File f = new File();
        f.mode = FileStat.S_IFREG | (mode & 07777);
        return add(path, f);
    }

    @Override
    public int mkdir(String path, long mode) {
        Dir d = new Dir();
        d.mode = FileStat.S_IFDIR | (mode & 07777);
        return add(path, d);
    }

    @Override
    public int unlink(String path) {
        synchronized (namespace) {
            if (!(nodes.get(path) instanceof File)) return -ErrorCodes.ENOENT();
            nodes.remove(path);
            ((Dir) nodes.get(parent(path))).children.remove(name(path));
            return 0;
        }
    }

    @Override
    public int rmdir(String path) {
        synchronized (namespace) {
            if (!(nodes.get(path) instanceof Dir d)) return -ErrorCodes.ENOENT();
            if (!d.children.isEmpty()) return -ErrorCodes.ENOTEMPTY();
            nodes.remove(path);
            ((Dir) nodes.get(parent(path))).children.remove(name(path));
            return 0;
        }
    }

    @Override
    public int rename(String from, String to) {
        synchronized (namespace) {
            Node n = nodes.get(from);
            if (n == null) return -ErrorCodes.ENOENT();
            if (n instanceof Dir) return -ErrorCodes.ENOSYS(); // the benchmark renames no directories
            if (!(nodes.get(parent(to)) instanceof Dir target)) return -ErrorCodes.ENOENT();
            nodes.remove(from);
            ((Dir) nodes.get(parent(from))).children.remove(name(from));
            nodes.put(to, n);
            target.children.put(name(to), n);
            return 0;
        }
    }

    @Override
    public int open(String path, FuseFileInfo fi) {
        return nodes.get(path) instanceof File ? 0 : -ErrorCodes.ENOENT();
    }

    @Override
    public int read(String path, Pointer buf, long size, long offset, FuseFileInfo fi) {
        return nodes.get(path) instanceof File f ? f.read(buf, size, offset) : -ErrorCodes.ENOENT();
    }

    @Override
    public int write(String path, Pointer buf, long size, long offset, FuseFileInfo fi) {
        return nodes.get(path) instanceof File f ? f.write(buf, size, offset) : -ErrorCodes.ENOENT();
    }

    @Override
    public int truncate(String path, long size) {
        if (!(nodes.get(path) instanceof File f)) return -ErrorCodes.ENOENT();
        f.truncate(size);
        return 0;
    }

    @Override
    public int fallocate(String path, int mode, long off, long length, FuseFileInfo fi) {
        if (mode != 0) return -ErrorCodes.EOPNOTSUPP();
        if (!(nodes.get(path) instanceof File f)) return -ErrorCodes.ENOENT();
        synchronized (f) {
            if (off + length > f.size) f.truncate(off + length);
        }
        return 0;
    }

    @Override
    public int readdir(String path, Pointer buf, FuseFillDir filler, long offset, FuseFileInfo fi) {
        if (!(nodes.get(path) instanceof Dir d)) return -ErrorCodes.ENOENT();
        String[] names;
        synchronized (namespace) {
            names = d.children.keySet().toArray(String[]::new);
        }
        filler.apply(buf, ".", null, 0);
        filler.apply(buf, "..", null, 0);
        for (String n : names) filler.apply(buf, n, null, 0);
        return 0;
    }

    @Override
    public int chmod(String path, long mode) {
        Node n = nodes.get(path);
        if (n == null) return -ErrorCodes.ENOENT();
        n.mode = (n.mode & FileStat.S_IFMT) | (mode & 07777);
        return 0;
    }

    @Override
    public int chown(String path, long uid, long gid) {
        return nodes.containsKey(path) ? 0 : -ErrorCodes.ENOENT();
    }

    @Override
    public int utimens(String path, Timespec[] timespec) {
        return nodes.containsKey(path) ? 0 : -ErrorCodes.ENOENT();
    }

    @Override
    public int statfs(String path, Statvfs stbuf) {
        stbuf.f_bsize.set(4096);
        stbuf.f_frsize.set(4096);
        stbuf.f_blocks.set(1L << 24);
        stbuf.f_bfree.set(1L << 24);
        stbuf.f_bavail.set(1L << 24);
        stbuf.f_namemax.set(255);
        return 0;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: JnrMemFs <mountpoint> [fuse options...]");
            System.exit(2);
        }
        JnrMemFs fs = new JnrMemFs();
        String[] opts = java.util.Arrays.copyOfRange(args, 1, args.length);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            fs.umount();
            done.countDown();
        }));
        fs.mount(Path.of(args[0]), false, false, opts);
        System.out.println("jnr-fuse memfs mounted at " + args[0]);
        done.await();
    }
}
