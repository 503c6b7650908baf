package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;

/** A data virtual address: where one copy of a block lives (device index, byte offset, allocated bytes). */
public record Dva(int device, long offset, long asize) {
    public static final int SIZE = 16;
    public static final Dva EMPTY = new Dva(0, 0, 0);

    public boolean isEmpty() {
        return asize == 0;
    }

    void encode(ByteBuffer b, int at) {
        b.putInt(at, device);
        b.putInt(at + 4, (int) (asize / Layout.SECTOR));
        b.putLong(at + 8, offset);
    }

    static Dva decode(ByteBuffer b, int at) throws FormatException {
        int device = b.getInt(at);
        long sectors = Integer.toUnsignedLong(b.getInt(at + 4));
        long offset = b.getLong(at + 8);
        if (sectors == 0) return EMPTY;
        if (offset < 0 || offset % Layout.SECTOR != 0 || device < 0) {
            throw new FormatException("bad DVA " + device + ":" + offset);
        }
        return new Dva(device, offset, sectors * Layout.SECTOR);
    }
}
