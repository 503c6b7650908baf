package dev.ringfuse.bench.peers.jfuse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.cryptomator.jfuse.api.DirFiller;
import org.cryptomator.jfuse.api.Errno;
import org.cryptomator.jfuse.api.FileInfo;
import org.cryptomator.jfuse.api.Fuse;
import org.cryptomator.jfuse.api.FuseOperations;
import org.cryptomator.jfuse.api.Stat;
import org.cryptomator.jfuse.api.Statvfs;
import org.cryptomator.jfuse.api.TimeSpec;

/**
 * The jFUSE peer of the fio benchmark: a mirror of a source directory on jFUSE's path API (libfuse 3 high
 * level, FFM). Usage: {@code java --enable-native-access=... -Dfuse.lib.path=<libfuse3.so.3> ... JfuseMirror
 * <source> <mountpoint> [fuse flags...]}; serves until SIGTERM.
 *
 * <p>Open files are kept as {@link FileChannel}s under a handle number in {@code fh}, so reads and writes
 * are positional calls on an open channel, not an open per request. Attributes come from the JDK's "unix"
 * attribute view (one stat per getattr).
 */
public final class JfuseMirror implements FuseOperations {
    private final Path root;
    private final Errno errno;
    private final Map<Long, FileChannel> open = new ConcurrentHashMap<>();
    private final AtomicLong nextFh = new AtomicLong(1);

    JfuseMirror(Path root, Errno errno) {
        this.root = root;
        this.errno = errno;
    }

    private Path resolve(String path) {
        return root.resolve(path.substring(1)); // FUSE paths are absolute ("/a/b")
    }

    /** Maps the JDK's exceptions back onto the errno the syscall gave. */
    private int fail(IOException e) {
        return switch (e) {
            case NoSuchFileException x -> -errno.enoent();
            case FileAlreadyExistsException x -> -errno.eexist();
            case DirectoryNotEmptyException x -> -errno.enotempty();
            case NotDirectoryException x -> -errno.enotdir();
            default -> -errno.eio();
        };
    }

    @Override
    public Errno errno() {
        return errno;
    }

    @Override
    public Set<Operation> supportedOperations() {
        return EnumSet.of(Operation.GET_ATTR, Operation.READ_DIR, Operation.OPEN_DIR, Operation.RELEASE_DIR,
                Operation.OPEN, Operation.CREATE, Operation.READ, Operation.WRITE, Operation.RELEASE,
                Operation.FLUSH, Operation.FSYNC, Operation.TRUNCATE, Operation.UNLINK, Operation.MKDIR,
                Operation.RMDIR, Operation.RENAME, Operation.CHMOD, Operation.CHOWN, Operation.UTIMENS,
                Operation.STATFS);
    }

    @Override
    public int getattr(String path, Stat stat, FileInfo fi) {
        try {
            Map<String, Object> a = Files.readAttributes(resolve(path),
                    "unix:mode,nlink,uid,gid,size,lastModifiedTime,lastAccessTime,ctime", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            stat.setMode((Integer) a.get("mode"));
            stat.setNLink(((Integer) a.get("nlink")).shortValue());
            stat.setUid((Integer) a.get("uid"));
            stat.setGid((Integer) a.get("gid"));
            stat.setSize((Long) a.get("size"));
            stat.mTime().set(((FileTime) a.get("lastModifiedTime")).toInstant());
            stat.aTime().set(((FileTime) a.get("lastAccessTime")).toInstant());
            stat.cTime().set(((FileTime) a.get("ctime")).toInstant());
            return 0;
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Override
    public int opendir(String path, FileInfo fi) {
        return Files.isDirectory(resolve(path)) ? 0 : -errno.enoent();
    }

    @Override
    public int readdir(String path, DirFiller filler, long offset, FileInfo fi, int flags) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(resolve(path))) {
            filler.fill(".");
            filler.fill("..");
            for (Path p : ds) filler.fill(p.getFileName().toString());
            return 0;
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Override
    public int releasedir(String path, FileInfo fi) {
        return 0;
    }

    private int openChannel(String path, FileInfo fi, Set<? extends OpenOption> extra) {
        Set<OpenOption> opts = new HashSet<>(fi.getOpenFlags());
        opts.addAll(extra);
        opts.remove(StandardOpenOption.APPEND); // positional writes carry the offset the kernel chose
        if (!opts.contains(StandardOpenOption.WRITE)) opts.add(StandardOpenOption.READ);
        try {
            FileChannel ch = FileChannel.open(resolve(path), opts);
            long fh = nextFh.getAndIncrement();
            open.put(fh, ch);
            fi.setFh(fh);
            return 0;
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Override
    public int open(String path, FileInfo fi) {
        return openChannel(path, fi, Set.of());
    }

    @Override
    public int create(String path, int mode, FileInfo fi) {
        int rc = openChannel(path, fi, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE));
        if (rc == 0) chmod(path, mode, fi);
        return rc;
    }

    @Override
    public int read(String path, ByteBuffer buf, long size, long offset, FileInfo fi) {
        FileChannel ch = open.get(fi.getFh());
        if (ch == null) return -errno.ebadf();
        try {
            int total = 0;
            while (buf.hasRemaining() && total < size) {
                int n = ch.read(buf, offset + total);
                if (n <= 0) break;
                total += n;
            }
            return total;
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Override
    public int write(String path, ByteBuffer buf, long size, long offset, FileInfo fi) {
        FileChannel ch = open.get(fi.getFh());
        if (ch == null) return -errno.ebadf();
        try {
            int total = 0;
            while (buf.hasRemaining()) total += ch.write(buf, offset + total);
            return total;
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Override
    public int flush(String path, FileInfo fi) {
        return 0;
    }

    @Override
    public int fsync(String path, int datasync, FileInfo fi) {
        FileChannel ch = open.get(fi.getFh());
        return ch == null ? -errno.ebadf() : call(() -> ch.force(datasync == 0));
    }

    @Override
    public int release(String path, FileInfo fi) {
        FileChannel ch = open.remove(fi.getFh());
        return ch == null ? -errno.ebadf() : call(ch::close);
    }

    @Override
    public int truncate(String path, long size, FileInfo fi) {
        FileChannel ch = fi == null ? null : open.get(fi.getFh());
        try {
            if (ch != null) {
                truncate(ch, size);
            } else {
                try (FileChannel c = FileChannel.open(resolve(path), StandardOpenOption.WRITE)) {
                    truncate(c, size);
                }
            }
            return 0;
        } catch (IOException e) {
            return fail(e);
        }
    }

    /** FileChannel.truncate only shrinks; growing writes a byte at the new end (leaving a hole). */
    private static void truncate(FileChannel ch, long size) throws IOException {
        if (size < ch.size()) {
            ch.truncate(size);
        } else if (size > ch.size()) {
            ch.write(ByteBuffer.wrap(new byte[1]), size - 1);
        }
    }

    /** An NIO call that answers nothing but success or an errno. */
    private interface IoCall {
        void run() throws IOException;
    }

    private int call(IoCall c) {
        try {
            c.run();
            return 0;
        } catch (IOException e) {
            return fail(e);
        }
    }

    @Override
    public int unlink(String path) {
        return call(() -> Files.delete(resolve(path)));
    }

    @Override
    public int mkdir(String path, int mode) {
        return call(() -> Files.createDirectory(resolve(path)));
    }

    @Override
    public int rmdir(String path) {
        return unlink(path);
    }

    @Override
    public int rename(String from, String to, int flags) {
        return call(() -> Files.move(resolve(from), resolve(to), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE));
    }

    @Override
    public int chmod(String path, int mode, FileInfo fi) {
        Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE = bits 8..0
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << (8 - i))) != 0) perms.add(order[i]);
        }
        return call(() -> Files.setPosixFilePermissions(resolve(path), perms));
    }

    @Override
    public int chown(String path, int uid, int gid, FileInfo fi) {
        return 0; // the benchmark runs as root and changes no owners
    }

    @Override
    public int utimens(String path, TimeSpec atime, TimeSpec mtime, FileInfo fi) {
        if (mtime.isUtimeOmit()) return 0;
        return call(() -> Files.setLastModifiedTime(resolve(path),
                FileTime.from(mtime.isUtimeNow() ? java.time.Instant.now() : mtime.get())));
    }

    @Override
    public int statfs(String path, Statvfs stat) {
        try {
            var store = Files.getFileStore(root);
            stat.setBsize(4096);
            stat.setFrsize(4096);
            stat.setBlocks(store.getTotalSpace() / 4096);
            stat.setBfree(store.getUnallocatedSpace() / 4096);
            stat.setBavail(store.getUsableSpace() / 4096);
            stat.setNameMax(255);
            return 0;
        } catch (IOException e) {
            return fail(e);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: JfuseMirror <source> <mountpoint> [fuse flags...]");
            System.exit(2);
        }
        var builder = Fuse.builder();
        String lib = System.getProperty("fuse.lib.path");
        if (lib != null) builder.setLibraryPath(lib);
        Fuse fuse = builder.build(new JfuseMirror(Path.of(args[0]).toAbsolutePath(), builder.errno()));
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                fuse.close();
            } catch (Exception e) {
                System.err.println("jfuse mirror: unmount failed: " + e);
            }
            done.countDown();
        }));
        fuse.mount("jfuse-mirror", Path.of(args[1]), java.util.Arrays.copyOfRange(args, 2, args.length));
        System.out.println("jfuse mirror mounted at " + args[1]);
        done.await();
    }
}
