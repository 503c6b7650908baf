package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The meta object set block the uberblock points at (DESIGN.md, "The MOS block"). */
public record MosBlock(long txg, BlockPointer directoryRoot, BlockPointer spaceLog, long allocatedBytes,
                       long nextDatasetId, long spaceLogLength) {
    public static final long MAGIC = Layout.magic("RFPOOLMS");
    public static final int SIZE = Layout.SECTOR;

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, MAGIC);
        b.putLong(8, txg);
        directoryRoot.encode(b, 16);
        spaceLog.encode(b, 144);
        b.putLong(272, allocatedBytes);
        b.putLong(280, nextDatasetId);
        b.putLong(288, spaceLogLength);
        BlockPointer.HOLE.encode(b, 296);
        return b.array();
    }

    public static MosBlock decode(byte[] bytes) throws FormatException {
        if (bytes.length != SIZE) throw new FormatException("MOS block: wrong size " + bytes.length);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != MAGIC) throw new FormatException("MOS block: bad magic");
        return new MosBlock(b.getLong(8), BlockPointer.decode(b, 16), BlockPointer.decode(b, 144), b.getLong(272),
                b.getLong(280), b.getLong(288));
    }
}
