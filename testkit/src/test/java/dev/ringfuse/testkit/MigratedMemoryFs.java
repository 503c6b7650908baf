package dev.ringfuse.testkit;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.DirFiller;
import dev.ringfuse.fs.FileStat;
import dev.ringfuse.fs.PathFileSystem;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ringfuse half of docs/migrating-from-jnr-fuse.md, compiled and mounted by {@link MigratedMemoryFsTest}
 * so the guide cannot rot: a flat in-memory filesystem (files in the root only).
 */
final class MigratedMemoryFs implements PathFileSystem {
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();

    @Override
    public FileStat getattr(String path, long fh) {
        if (path.equals("/")) return new FileStat().mode(FileStat.S_IFDIR | 0755).nlink(2);
        byte[] data = files.get(path);
        if (data == null) throw new FuseException(Errno.ENOENT);
        return new FileStat().mode(FileStat.S_IFREG | 0644).size(data.length);
    }

    @Override
    public void readdir(String path, DirFiller filler, long fh) {
        if (!path.equals("/")) throw new FuseException(Errno.ENOTDIR);
        files.keySet().forEach(p -> filler.add(p.substring(1), null));
    }

    @Override
    public long create(String path, int mode, int flags) {
        if (files.putIfAbsent(path, new byte[0]) != null) throw new FuseException(Errno.EEXIST);
        return 0;
    }

    @Override
    public long open(String path, int flags) {
        if (!files.containsKey(path)) throw new FuseException(Errno.ENOENT);
        return 0;
    }

    @Override
    public int read(String path, MemorySegment buf, long offset, long fh) {
        byte[] data = files.getOrDefault(path, new byte[0]);
        int n = (int) Math.max(0, Math.min(buf.byteSize(), data.length - offset));
        MemorySegment.copy(data, (int) offset, buf, ValueLayout.JAVA_BYTE, 0, n);
        return n;
    }

    @Override
    public int write(String path, MemorySegment data, long offset, long fh) {
        files.compute(path, (p, old) -> {
            byte[] b = Arrays.copyOf(old == null ? new byte[0] : old, (int) Math.max(old == null ? 0 : old.length, offset + data.byteSize()));
            MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, b, (int) offset, (int) data.byteSize());
            return b;
        });
        return (int) data.byteSize();
    }

    @Override
    public void truncate(String path, long size, long fh) {
        if (files.computeIfPresent(path, (p, old) -> Arrays.copyOf(old, (int) size)) == null) throw new FuseException(Errno.ENOENT);
    }

    @Override
    public void unlink(String path) {
        if (files.remove(path) == null) throw new FuseException(Errno.ENOENT);
    }
}
