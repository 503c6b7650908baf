package dev.ringfuse.pool.fs;

import dev.ringfuse.pool.format.FormatException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The values of hashed keys: a directory bucket (entries whose names share h(name)) and an xattr bucket.
 * Names are raw bytes (filenames need not be valid UTF-8).
 */
final class Buckets {
    private Buckets() {}

    record Dirent(byte[] name, long ino, int dtype) {}

    /**
     * An xattr entry: inline {@code value}, or (value null) stored out of line in chunks of slot
     * {@code slot}, {@code bigLength} bytes long (see {@link Xattrs}).
     */
    record Xattr(byte[] name, byte[] value, int slot, int bigLength) {
        Xattr(byte[] name, byte[] value) {
            this(name, value, 0, 0);
        }

        boolean big() { return value == null; }
    }

    /** Length word of an out-of-line entry: bit 31 set, slot in bits 24..30, length below. */
    static final int BIG = 0x80000000;

    static List<Dirent> dirents(byte[] v) throws FormatException {
        List<Dirent> out = new ArrayList<>();
        if (v == null) return out;
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (b.hasRemaining()) {
                long ino = b.getLong();
                int type = b.get() & 0xFF;
                byte[] n = new byte[b.getShort() & 0xFFFF];
                b.get(n);
                out.add(new Dirent(n, ino, type));
            }
        } catch (BufferUnderflowException e) {
            throw new FormatException("directory bucket truncated");
        }
        return out;
    }

    static byte[] dirents(List<Dirent> list) {
        int size = 0;
        for (Dirent d : list) size += 11 + d.name().length;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (Dirent d : list) b.putLong(d.ino()).put((byte) d.dtype()).putShort((short) d.name().length).put(d.name());
        return b.array();
    }

    static List<Xattr> xattrs(byte[] v) throws FormatException {
        List<Xattr> out = new ArrayList<>();
        if (v == null) return out;
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (b.hasRemaining()) {
                byte[] n = new byte[b.getShort() & 0xFFFF];
                b.get(n);
                int len = b.getInt();
                if ((len & BIG) != 0) {
                    out.add(new Xattr(n, null, (len >>> 24) & 0x7F, len & 0xFFFFFF));
                    continue;
                }
                byte[] val = new byte[len];
                b.get(val);
                out.add(new Xattr(n, val));
            }
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new FormatException("xattr bucket truncated");
        }
        return out;
    }

    static byte[] xattrs(List<Xattr> list) {
        int size = 0;
        for (Xattr x : list) size += 6 + x.name().length + (x.big() ? 0 : x.value().length);
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (Xattr x : list) {
            b.putShort((short) x.name().length).put(x.name());
            if (x.big()) b.putInt(BIG | x.slot() << 24 | x.bigLength());
            else b.putInt(x.value().length).put(x.value());
        }
        return b.array();
    }
}
