package dev.ringfuse.pool.format;

import io.airlift.compress.Compressor;
import io.airlift.compress.Decompressor;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;

/** Block compression algorithms (aircompressor, pure Java); the code is the byte stored in a block pointer. */
public enum Compression {
    OFF(0, "off"),
    LZ4(1, "lz4"),
    ZSTD(2, "zstd");

    public final int code;
    public final String propertyName;

    Compression(int code, String propertyName) {
        this.code = code;
        this.propertyName = propertyName;
    }

    public static Compression ofCode(int code) throws FormatException {
        for (Compression c : values()) if (c.code == code) return c;
        throw new FormatException("unknown compression " + code);
    }

    public static Compression ofName(String name) {
        for (Compression c : values()) if (c.propertyName.equalsIgnoreCase(name)) return c;
        if (name.equalsIgnoreCase("on")) return LZ4;
        throw new IllegalArgumentException("unknown compression '" + name + "' (off, lz4, zstd)");
    }

    /**
     * Compresses {@code src[0, len)}; returns the compressed bytes only if they save at least one sector
     * (the per-block rule of the format), else null: the caller stores the block raw.
     */
    public byte[] compressIfSmaller(byte[] src, int len, int sector) {
        if (this == OFF) return null;
        Compressor c = this == LZ4 ? new Lz4Compressor() : new ZstdCompressor();
        byte[] out = new byte[c.maxCompressedLength(len)];
        int n = c.compress(src, 0, len, out, 0, out.length);
        if (roundUp(n, sector) >= roundUp(len, sector)) return null;
        return java.util.Arrays.copyOf(out, n);
    }

    /** Decompresses exactly {@code lsize} bytes; malformed input becomes a FormatException. */
    public byte[] decompress(byte[] src, int psize, int lsize) throws FormatException {
        if (this == OFF) throw new IllegalStateException("not compressed");
        Decompressor d = this == LZ4 ? new Lz4Decompressor() : new ZstdDecompressor();
        byte[] out = new byte[lsize];
        try {
            int n = d.decompress(src, 0, psize, out, 0, lsize);
            if (n != lsize) throw new FormatException("decompressed " + n + " bytes, expected " + lsize);
        } catch (RuntimeException e) {
            throw new FormatException("corrupt " + propertyName + " block: " + e.getMessage());
        }
        return out;
    }

    static long roundUp(long n, int sector) {
        return (n + sector - 1) / sector * sector;
    }
}
