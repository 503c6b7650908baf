package dev.ringfuse.testkit;

import dev.ringfuse.fs.FileStat;
import dev.ringfuse.fs.PathFileSystem;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** The node types of {@link PathMemFs}: a tree of objects, so hard links are two names of one object. */
final class PathMemNodes {
    private PathMemNodes() {}

    static long now() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    abstract static class Node {
        final long ino;
        int mode;
        int uid, gid;
        int nlink = 1;
        long atime = now(), mtime = atime, ctime = atime;
        final Map<String, byte[]> xattrs = new LinkedHashMap<>();

        Node(long ino, int mode, int uid, int gid) {
            this.ino = ino;
            this.mode = mode;
            this.uid = uid;
            this.gid = gid;
        }

        long size() { return 0; }

        long blocks() { return 0; }

        int rdev() { return 0; }

        FileStat stat() {
            return new FileStat().ino(ino).mode(mode).nlink(nlink).uid(uid).gid(gid).rdev(rdev()).size(size())
                    .blocks(blocks()).atime(atime / 1_000_000_000L, (int) (atime % 1_000_000_000L))
                    .mtime(mtime / 1_000_000_000L, (int) (mtime % 1_000_000_000L))
                    .ctime(ctime / 1_000_000_000L, (int) (ctime % 1_000_000_000L));
        }

        /** utimensat semantics for one time: UTIME_NOW, UTIME_OMIT or an exact value. */
        static long time(long old, long sec, int nsec) {
            if (nsec == PathFileSystem.UTIME_OMIT) return old;
            if (nsec == PathFileSystem.UTIME_NOW) return now();
            return sec * 1_000_000_000L + nsec;
        }
    }

    static final class Dir extends Node {
        final TreeMap<String, Node> children = new TreeMap<>();
        Dir parent;

        Dir(long ino, int mode, int uid, int gid, Dir parent) {
            super(ino, FileStat.S_IFDIR | mode, uid, gid);
            this.parent = parent == null ? this : parent;
            this.nlink = 2;
        }

        long size() { return 4096; }

        void touch() { mtime = ctime = now(); }
    }

    /** A regular file: sparse 64 KiB chunks, so holes cost nothing. */
    static final class File extends Node {
        static final int CHUNK = 64 * 1024;
        final TreeMap<Long, byte[]> chunks = new TreeMap<>();
        long size;

        File(long ino, int mode, int uid, int gid) {
            super(ino, FileStat.S_IFREG | (mode & 07777), uid, gid);
        }

        long size() { return size; }

        long blocks() { return chunks.size() * (long) (CHUNK / 512); }

        int read(MemorySegment buf, long off) {
            long n = Math.max(0, Math.min(buf.byteSize(), size - off));
            for (long done = 0; done < n; ) {
                long pos = off + done;
                long idx = pos / CHUNK;
                int in = (int) (pos % CHUNK);
                int len = (int) Math.min(CHUNK - in, n - done);
                byte[] c = chunks.get(idx);
                if (c == null) buf.asSlice(done, len).fill((byte) 0);
                else MemorySegment.copy(MemorySegment.ofArray(c), in, buf, done, len);
                done += len;
            }
            return (int) n;
        }

        void write(MemorySegment data, long off) {
            long n = data.byteSize();
            for (long done = 0; done < n; ) {
                long pos = off + done;
                int in = (int) (pos % CHUNK);
                int len = (int) Math.min(CHUNK - in, n - done);
                byte[] c = chunks.computeIfAbsent(pos / CHUNK, k -> new byte[CHUNK]);
                MemorySegment.copy(data, done, MemorySegment.ofArray(c), in, len);
                done += len;
            }
            size = Math.max(size, off + n);
            mtime = ctime = now();
        }

        /** Allocates the chunks of [off, off+len) (zeros where there were none); extends the size unless {@code keepSize}. */
        void allocate(long off, long len, boolean extend) {
            for (long i = off / CHUNK; i <= (off + len - 1) / CHUNK; i++) chunks.computeIfAbsent(i, k -> new byte[CHUNK]);
            if (extend && off + len > size) size = off + len;
            ctime = now();
        }

        /** Zeroes [off, off+len): whole chunks are freed, the parts of others zeroed. */
        void punch(long off, long len) {
            long end = off + len;
            long firstWhole = (off + CHUNK - 1) / CHUNK, endWhole = end / CHUNK;
            if (firstWhole < endWhole) chunks.subMap(firstWhole, endWhole).clear();
            for (long p = off; p < end; ) {
                long idx = p / CHUNK, stop = Math.min(end, (idx + 1) * CHUNK);
                byte[] c = chunks.get(idx);
                if (c != null) java.util.Arrays.fill(c, (int) (p - idx * CHUNK), (int) (stop - idx * CHUNK), (byte) 0);
                p = stop;
            }
            mtime = ctime = now();
        }

        /** The first data offset at or after {@code off} (below the size), or -1. */
        long nextData(long off) {
            Long idx = chunks.ceilingKey(off / CHUNK);
            long at = idx == null ? -1 : Math.max(off, idx * CHUNK);
            return at < size ? at : -1;
        }

        /** The first hole at or after {@code off}; the end of the file counts as one. */
        long nextHole(long off) {
            long idx = off / CHUNK;
            while (chunks.containsKey(idx)) idx++;
            return Math.min(size, Math.max(off, idx * CHUNK));
        }

        void truncate(long newSize) {
            if (newSize < size) {
                chunks.tailMap((newSize + CHUNK - 1) / CHUNK, true).clear();
                byte[] last = chunks.get(newSize / CHUNK);
                if (last != null) java.util.Arrays.fill(last, (int) (newSize % CHUNK), CHUNK, (byte) 0);
            }
            size = newSize;
            mtime = ctime = now();
        }
    }

    static final class Symlink extends Node {
        final String target;

        Symlink(long ino, int uid, int gid, String target) {
            super(ino, FileStat.S_IFLNK | 0777, uid, gid);
            this.target = target;
        }

        long size() { return target.getBytes(java.nio.charset.StandardCharsets.UTF_8).length; }
    }

    static final class Special extends Node {
        final int rdev;

        Special(long ino, int mode, int uid, int gid, int rdev) {
            super(ino, mode, uid, gid);
            this.rdev = rdev;
        }

        int rdev() { return rdev; }
    }
}
