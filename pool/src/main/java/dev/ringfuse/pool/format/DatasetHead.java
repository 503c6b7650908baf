package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A dataset's head in the dataset directory (DESIGN.md, "Dataset head" and "Space accounting"). The space
 * counters are valid only with {@link #SPACE_COUNTED} in {@code flags}: heads written before they existed
 * have the flag clear and an import recomputes them from the trees.
 */
public record DatasetHead(int kind, int flags, long parent, long origin, long prevSnapshot, long prevSnapshotTxg,
                          long creationTxg, long creationMs, BlockPointer root, Space space, String name) {
    public static final int FILESYSTEM = 0, SNAPSHOT = 1;
    /** Flag bit 0: {@link #space} follows the rules of "Space accounting" (absent in heads of older pools). */
    public static final int SPACE_COUNTED = 1;
    /** Bytes of the counter extension after the name. */
    static final int EXTENSION = 32;

    /**
     * Space counters, in bytes. {@code referenced}: allocated size (every copy) of every block reachable from
     * the root, B-tree nodes and file data; {@code logical} and {@code compressed}: their logical and stored
     * sizes (one copy; the compression ratio is their quotient); {@code own}: the part of {@code referenced}
     * born after a clone's origin (all of it for a filesystem that is no clone) — usedbydataset;
     * {@code snapshots}: blocks on this filesystem's dead lists born after its origin — usedbysnapshots.
     * A snapshot's head keeps its filesystem's figures as of the snapshot ({@code snapshots} 0).
     */
    public record Space(long referenced, long logical, long compressed, long own, long snapshots) {
        public static final Space ZERO = new Space(0, 0, 0, 0, 0);

        /** Adds ({@code sign} 1) or removes (-1) one block of the live tree. */
        public Space plus(BlockPointer bp, int sign, boolean own) {
            long a = bp.allocated() * sign;
            return new Space(referenced + a, logical + (long) bp.lsize() * sign, compressed + (long) bp.psize() * sign,
                    own ? this.own + a : this.own, snapshots);
        }

        public Space withSnapshots(long s) { return new Space(referenced, logical, compressed, own, s); }
        public Space withOwn(long o) { return new Space(referenced, logical, compressed, o, snapshots); }
    }

    public DatasetHead withRoot(BlockPointer newRoot, Space s) {
        return new DatasetHead(kind, flags | SPACE_COUNTED, parent, origin, prevSnapshot, prevSnapshotTxg, creationTxg, creationMs,
                newRoot, s, name);
    }

    public DatasetHead withSpace(Space s) { return withRoot(root, s); }

    public DatasetHead withPrev(long prev, long prevTxg) {
        return new DatasetHead(kind, flags, parent, origin, prev, prevTxg, creationTxg, creationMs, root, space, name);
    }

    /** Logical bytes referenced (send's size estimate). */
    public long logicalBytes() { return space.logical(); }

    /** Allocated bytes referenced (every copy). */
    public long physicalBytes() { return space.referenced(); }

    public boolean counted() { return (flags & SPACE_COUNTED) != 0; }

    public byte[] encode() {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(330 + n.length + EXTENSION).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, kind);
        b.putInt(4, flags);
        b.putLong(8, parent);
        b.putLong(16, origin);
        b.putLong(24, prevSnapshot);
        b.putLong(32, prevSnapshotTxg);
        b.putLong(40, creationTxg);
        b.putLong(48, creationMs);
        root.encode(b, 56);
        b.putLong(184, space.logical());
        b.putLong(192, space.referenced());
        BlockPointer.HOLE.encode(b, 200);
        b.putShort(328, (short) n.length);
        b.put(330, n);
        int e = 330 + n.length;
        b.putLong(e, space.compressed());
        b.putLong(e + 8, space.own());
        b.putLong(e + 16, space.snapshots());
        b.putLong(e + 24, 0);
        return b.array();
    }

    public static DatasetHead decode(byte[] v) throws FormatException {
        if (v.length < 330) throw new FormatException("dataset head: truncated");
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        int len = b.getShort(328) & 0xFFFF;
        if (330 + len > v.length) throw new FormatException("dataset head: bad name length");
        int e = 330 + len;
        boolean ext = v.length >= e + EXTENSION; // older heads end with the name: their counters read as zero
        int flags = ext ? b.getInt(4) : b.getInt(4) & ~SPACE_COUNTED;
        Space s = new Space(b.getLong(192), b.getLong(184), ext ? b.getLong(e) : 0, ext ? b.getLong(e + 8) : 0, ext ? b.getLong(e + 16) : 0);
        return new DatasetHead(b.getInt(0), flags, b.getLong(8), b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40),
                b.getLong(48), BlockPointer.decode(b, 56), s, new String(v, 330, len, StandardCharsets.UTF_8));
    }
}
