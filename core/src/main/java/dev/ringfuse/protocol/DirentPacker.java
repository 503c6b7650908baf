package dev.ringfuse.protocol;

import dev.ringfuse.kernel.Off;
import dev.ringfuse.lowlevel.Entry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;

/**
 * Packs fuse_dirent / fuse_direntplus records into a reply buffer, each padded to 8 bytes, never splitting
 * a record and never exceeding the kernel's size. Names the kernel would reject (empty, longer than 1024,
 * containing '/') are refused here with an exception, since they are a filesystem bug.
 */
public final class DirentPacker {
    private final MemorySegment buf;
    private final int limit;
    private final boolean plus;
    private int pos;

    /** Packs into {@code buf}, at most {@code limit} bytes; {@code plus} for readdirplus records. */
    public DirentPacker(MemorySegment buf, int limit, boolean plus) {
        this.buf = buf;
        this.limit = (int) Math.min(limit, buf.byteSize());
        this.plus = plus;
    }

    /** Bytes packed so far. */
    public int size() { return pos; }

    /** Record size for a name of {@code nameLen} bytes. */
    public static int recordSize(int nameLen, boolean plus) {
        return (plus ? Off.SIZEOF_ENTRY_OUT : 0) + ((Off.SIZEOF_DIRENT + nameLen + 7) & ~7);
    }

    /**
     * Adds one record; {@code entry} only for readdirplus. Returns false if it does not fit.
     *
     * @throws IllegalArgumentException for a name the kernel would reject
     */
    public boolean add(String name, long ino, int mode, long nextOffset, Entry entry) {
        byte[] n = dev.ringfuse.FileNames.encode(name);
        if (n.length == 0 || n.length > dev.ringfuse.kernel.Fuse.NAME_MAX_KERNEL || name.indexOf('/') >= 0) {
            throw new IllegalArgumentException("directory entry name the kernel rejects: \"" + name + "\"");
        }
        int size = recordSize(n.length, plus);
        if (pos + size > limit) return false;
        long at = pos;
        if (plus) {
            Encoder.entry(buf, at, entry);
            at += Off.SIZEOF_ENTRY_OUT;
        }
        i64(buf, at + Off.DIRENT_INO, ino);
        i64(buf, at + Off.DIRENT_OFF, nextOffset);
        i32(buf, at + Off.DIRENT_NAMELEN, n.length);
        i32(buf, at + Off.DIRENT_TYPE, (mode >>> 12) & 15);
        MemorySegment.copy(n, 0, buf, ValueLayout.JAVA_BYTE, at + Off.SIZEOF_DIRENT, n.length);
        long end = pos + size;
        for (long i = at + Off.SIZEOF_DIRENT + n.length; i < end; i++) buf.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        pos += size;
        return true;
    }
}
