package dev.ringfuse.pool.format;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.zip.CRC32C;

/** Block checksum algorithms; the code is the byte stored in a block pointer. */
public enum Checksum {
    /** The fast default: the JDK's CRC32C (hardware-accelerated), in the first 4 bytes of the 32-byte field. */
    CRC32C(1, "crc32c"),
    /** Cryptographic strength, selectable per dataset. */
    SHA256(2, "sha256");

    public static final int SIZE = 32;
    public final int code;
    public final String propertyName;

    Checksum(int code, String propertyName) {
        this.code = code;
        this.propertyName = propertyName;
    }

    public static Checksum ofCode(int code) throws FormatException {
        for (Checksum c : values()) if (c.code == code) return c;
        throw new FormatException("unknown checksum type " + code);
    }

    public static Checksum ofName(String name) {
        for (Checksum c : values()) if (c.propertyName.equalsIgnoreCase(name)) return c;
        if (name.equalsIgnoreCase("on")) return CRC32C;
        throw new IllegalArgumentException("unknown checksum '" + name + "' (crc32c, sha256)");
    }

    /** The 32-byte checksum of {@code data[off, off+len)}. */
    public byte[] compute(byte[] data, int off, int len) {
        return compute(java.nio.ByteBuffer.wrap(data, off, len));
    }

    /** The 32-byte checksum of the bytes {@code data} has left (position to limit, consumed): a heap array or native memory. */
    public byte[] compute(java.nio.ByteBuffer data) {
        byte[] out = new byte[SIZE];
        switch (this) {
            case CRC32C -> {
                CRC32C c = new CRC32C();
                c.update(data);
                int v = (int) c.getValue();
                out[0] = (byte) v; out[1] = (byte) (v >>> 8); out[2] = (byte) (v >>> 16); out[3] = (byte) (v >>> 24);
            }
            case SHA256 -> {
                try {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    md.update(data);
                    System.arraycopy(md.digest(), 0, out, 0, SIZE);
                } catch (NoSuchAlgorithmException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return out;
    }

    public boolean matches(byte[] expected, byte[] data, int off, int len) {
        return Arrays.equals(expected, compute(data, off, len));
    }

    /**
     * Whether the bytes {@code data} has left have checksum {@code expected}: `pool verify` checks a read in the
     * device's own buffer, without copying it to the heap first.
     */
    public boolean matches(byte[] expected, java.nio.ByteBuffer data) {
        return Arrays.equals(expected, compute(data));
    }

    /** CRC32C, as used for the self-checksums of labels and uberblocks. */
    public static int crc32c(byte[] data, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(data, off, len);
        return (int) c.getValue();
    }
}
