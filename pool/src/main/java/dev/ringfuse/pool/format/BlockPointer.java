package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A pointer to a block, carrying the block's checksum (so a tree is verified from its root), its sizes,
 * compression and birth txg (DESIGN.md, "Block pointers"). Up to three copies (DVAs). 128 bytes on disk.
 */
public record BlockPointer(Dva[] dvas, int lsize, int psize, BlockType type, Compression compression,
                           Checksum checksumType, int level, long birth, long fill, byte[] checksum) {
    public static final int SIZE = 128;
    public static final BlockPointer HOLE = new BlockPointer(new Dva[] {Dva.EMPTY, Dva.EMPTY, Dva.EMPTY},
            0, 0, BlockType.FILE_DATA, Compression.OFF, Checksum.CRC32C, 0, 0, 0, new byte[Checksum.SIZE]);

    public BlockPointer {
        if (dvas.length != 3) throw new IllegalArgumentException("three DVAs");
    }

    public boolean isHole() {
        return dvas[0].isEmpty();
    }

    /** Number of non-empty DVAs. */
    public int copies() {
        int n = 0;
        for (Dva d : dvas) if (!d.isEmpty()) n++;
        return n;
    }

    public void encode(ByteBuffer b, int at) {
        if (isHole()) {
            for (int i = 0; i < SIZE; i++) b.put(at + i, (byte) 0);
            return;
        }
        for (int i = 0; i < 3; i++) dvas[i].encode(b, at + i * Dva.SIZE);
        b.putInt(at + 48, lsize);
        b.putInt(at + 52, psize);
        b.put(at + 56, (byte) type.code);
        b.put(at + 57, (byte) compression.code);
        b.put(at + 58, (byte) checksumType.code);
        b.put(at + 59, (byte) level);
        b.putInt(at + 60, 0);
        b.putLong(at + 64, birth);
        b.putLong(at + 72, fill);
        b.put(at + 80, checksum, 0, Checksum.SIZE);
        b.putLong(at + 112, 0);
        b.putLong(at + 120, 0);
    }

    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        encode(b, 0);
        return b.array();
    }

    public static BlockPointer decode(ByteBuffer b, int at) throws FormatException {
        Dva d0 = Dva.decode(b, at);
        if (d0.isEmpty()) return HOLE;
        Dva[] dvas = {d0, Dva.decode(b, at + 16), Dva.decode(b, at + 32)};
        int lsize = b.getInt(at + 48);
        int psize = b.getInt(at + 52);
        BlockType type = BlockType.ofCode(b.get(at + 56) & 0xFF);
        Compression comp = Compression.ofCode(b.get(at + 57) & 0xFF);
        Checksum ck = Checksum.ofCode(b.get(at + 58) & 0xFF);
        int level = b.get(at + 59) & 0xFF;
        if (lsize <= 0 || psize <= 0 || psize > d0.asize() || (comp == Compression.OFF && psize != lsize)) {
            throw new FormatException("bad block pointer sizes lsize=" + lsize + " psize=" + psize);
        }
        byte[] sum = new byte[Checksum.SIZE];
        b.get(at + 80, sum);
        return new BlockPointer(dvas, lsize, psize, type, comp, ck, level, b.getLong(at + 64), b.getLong(at + 72), sum);
    }

    public static BlockPointer fromBytes(byte[] bytes) throws FormatException {
        return decode(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0);
    }

    /** Bytes allocated on disk for all copies. */
    public long allocated() {
        long n = 0;
        for (Dva d : dvas) n += d.asize();
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlockPointer p && Arrays.equals(p.toBytes(), toBytes());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(toBytes());
    }

    @Override
    public String toString() {
        if (isHole()) return "HOLE";
        return type + "[" + dvas[0].device() + ":" + dvas[0].offset() + (dvas[1].isEmpty() ? "" : "," + dvas[1].device() + ":" + dvas[1].offset())
                + " l=" + lsize + " p=" + psize + " " + compression + " birth=" + birth + "]";
    }
}
