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

    /** Blocks at least this long are probed before they are compressed whole. */
    static final int PROBE_FROM = 32 << 10;
    /** The probe: this many slices, evenly spread over the block, ... */
    static final int PROBE_SLICES = 8;
    /** ... of this many bytes each (an eighth of a 128 KiB record in all). */
    static final int PROBE_SLICE = 2 << 10;

    /**
     * Compresses {@code src[0, len)}; returns the compressed bytes only if they save at least an eighth of the
     * block, rounded to whole sectors (as ZFS requires), else null: the caller stores the block raw.
     *
     * <p>Why an eighth and not one sector: a block that shrinks by a few percent costs its compression on
     * every write and its decompression on every read for almost no space. fio's default data is such a case:
     * LZ4 shrinks it to 0.96 at ~380 MB/s here, so a dataset with compression=lz4 wrote it at half the speed of
     * one without, to save 4 % (docs/bench/pool.md, session 12). Why a probe: to learn that, the whole block
     * had to be compressed first. A block of {@link #PROBE_FROM} bytes or more is first probed: slices spread
     * over it are compressed together, and unless they save an eighth the block is stored raw at an eighth of
     * the cost. Slices, not a prefix, so that a block whose head is incompressible but whose rest is not
     * (a header, then zeros or text) is still seen to compress.
     */
    public byte[] compressIfSmaller(byte[] src, int len, int sector) {
        if (this == OFF) return null;
        if (len >= PROBE_FROM && !probeSaves(src, len)) return null;
        byte[] out = compress(src, 0, len);
        int n = out.length;
        if (roundUp(n, sector) > roundUp(len - len / 8, sector) || roundUp(n, sector) >= roundUp(len, sector)) return null;
        return out;
    }

    /** Whether the probe's slices of {@code src[0, len)}, compressed together, save at least an eighth. */
    private boolean probeSaves(byte[] src, int len) {
        byte[] sample = new byte[PROBE_SLICES * PROBE_SLICE];
        long stride = (len - PROBE_SLICE) / (PROBE_SLICES - 1);
        for (int i = 0; i < PROBE_SLICES; i++) {
            System.arraycopy(src, (int) (i * stride), sample, i * PROBE_SLICE, PROBE_SLICE);
        }
        return compress(sample, 0, sample.length).length <= sample.length - sample.length / 8;
    }

    private byte[] compress(byte[] src, int off, int len) {
        Compressor c = this == LZ4 ? new Lz4Compressor() : new ZstdCompressor();
        byte[] out = new byte[c.maxCompressedLength(len)];
        int n = c.compress(src, off, len, out, 0, out.length);
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
