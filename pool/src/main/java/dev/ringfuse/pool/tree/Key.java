package dev.ringfuse.pool.tree;

import java.nio.ByteBuffer;

/** A B-tree key: (object, type, offset), ordered as unsigned numbers in that order. 17 bytes on disk. */
public record Key(long obj, int type, long off) implements Comparable<Key> {
    public static final int SIZE = 17;
    public static final Key MIN = new Key(0, 0, 0);

    public Key {
        if (type < 0 || type > 255) throw new IllegalArgumentException("key type " + type);
    }

    @Override
    public int compareTo(Key o) {
        int c = Long.compareUnsigned(obj, o.obj);
        if (c != 0) return c;
        c = Integer.compare(type, o.type);
        return c != 0 ? c : Long.compareUnsigned(off, o.off);
    }

    /** The first key of (obj, type): every offset of that pair sorts at or after it. */
    public static Key first(long obj, int type) {
        return new Key(obj, type, 0);
    }

    /** The first key after every (obj, type, *). */
    public static Key after(long obj, int type) {
        return type < 255 ? new Key(obj, type + 1, 0) : new Key(obj + 1, 0, 0);
    }

    void encode(ByteBuffer b) {
        b.putLong(obj).put((byte) type).putLong(off);
    }

    static Key decode(ByteBuffer b) {
        return new Key(b.getLong(), b.get() & 0xFF, b.getLong());
    }
}
