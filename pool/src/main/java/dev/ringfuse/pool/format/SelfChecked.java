package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The 4096-byte structures that carry their own CRC32C at offset 4088 (config blocks, uberblocks). */
final class SelfChecked {
    private SelfChecked() {}

    static final int CHECKSUM_AT = Layout.SECTOR - 8;

    static ByteBuffer allocate() {
        return ByteBuffer.allocate(Layout.SECTOR).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] seal(ByteBuffer b) {
        b.putLong(CHECKSUM_AT, Integer.toUnsignedLong(Checksum.crc32c(b.array(), 0, CHECKSUM_AT)));
        return b.array();
    }

    /** Checks length, magic, checksum and version; returns the buffer positioned for field reads. */
    static ByteBuffer open(byte[] bytes, long magic, String what) throws FormatException {
        if (bytes.length != Layout.SECTOR) throw new FormatException(what + ": wrong size " + bytes.length);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getLong(0) != magic) throw new FormatException(what + ": no magic (not a ringfuse pool)");
        long sum = Integer.toUnsignedLong(Checksum.crc32c(bytes, 0, CHECKSUM_AT));
        if (b.getLong(CHECKSUM_AT) != sum) throw new FormatException(what + ": checksum mismatch");
        int version = b.getInt(8);
        if (version > Layout.VERSION) {
            throw new FormatException("pool format version " + version + " is newer than this ringfuse supports ("
                    + Layout.VERSION + "); upgrade ringfuse");
        }
        if (version < 1) throw new FormatException(what + ": bad version " + version);
        return b;
    }
}
