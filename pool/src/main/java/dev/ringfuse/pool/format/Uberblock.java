package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;

/** One committed transaction group's root (DESIGN.md, "Uberblock"). */
public record Uberblock(long txg, long poolGuid, long timestampMs, long guidSum, BlockPointer mos) {
    public static final long MAGIC = Layout.magic("RFPOOLUB");

    public byte[] encode() {
        ByteBuffer b = SelfChecked.allocate();
        b.putLong(0, MAGIC);
        b.putInt(8, Layout.STRIPE_VERSION); // the uberblock's layout did not change with mirrors
        b.putLong(16, txg);
        b.putLong(24, poolGuid);
        b.putLong(32, timestampMs);
        b.putLong(40, guidSum);
        mos.encode(b, 48);
        return SelfChecked.seal(b);
    }

    public static Uberblock decode(byte[] bytes) throws FormatException {
        ByteBuffer b = SelfChecked.open(bytes, MAGIC, "uberblock");
        return new Uberblock(b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40), BlockPointer.decode(b, 48));
    }
}
