package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** A dataset's head in the dataset directory (DESIGN.md, "Dataset head"). */
public record DatasetHead(int kind, long parent, long origin, long prevSnapshot, long prevSnapshotTxg,
                          long creationTxg, long creationMs, BlockPointer root, long logicalBytes,
                          long physicalBytes, String name) {
    public static final int FILESYSTEM = 0, SNAPSHOT = 1;

    public DatasetHead withRoot(BlockPointer newRoot, long logical, long physical) {
        return new DatasetHead(kind, parent, origin, prevSnapshot, prevSnapshotTxg, creationTxg, creationMs, newRoot,
                logical, physical, name);
    }

    public byte[] encode() {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(330 + n.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, kind);
        b.putLong(8, parent);
        b.putLong(16, origin);
        b.putLong(24, prevSnapshot);
        b.putLong(32, prevSnapshotTxg);
        b.putLong(40, creationTxg);
        b.putLong(48, creationMs);
        root.encode(b, 56);
        b.putLong(184, logicalBytes);
        b.putLong(192, physicalBytes);
        BlockPointer.HOLE.encode(b, 200);
        b.putShort(328, (short) n.length);
        b.put(330, n);
        return b.array();
    }

    public static DatasetHead decode(byte[] v) throws FormatException {
        if (v.length < 330) throw new FormatException("dataset head: truncated");
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        int len = b.getShort(328) & 0xFFFF;
        if (330 + len > v.length) throw new FormatException("dataset head: bad name length");
        return new DatasetHead(b.getInt(0), b.getLong(8), b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40),
                b.getLong(48), BlockPointer.decode(b, 56), b.getLong(184), b.getLong(192),
                new String(v, 330, len, StandardCharsets.UTF_8));
    }
}
