package dev.ringfuse.pool.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Exact bytes of the on-disk structures (DESIGN.md tables). */
class FormatCodecTest {
    static final HexFormat HEX = HexFormat.of();

    @Test
    void blockPointerBytes() throws Exception {
        byte[] sum = new byte[32];
        sum[0] = (byte) 0xAA;
        sum[31] = (byte) 0xBB;
        BlockPointer bp = new BlockPointer(new Dva[] {new Dva(1, 0x400000, 8192), new Dva(0, 0x800000, 8192), Dva.EMPTY},
                16384, 5000, BlockType.BTREE_NODE, Compression.LZ4, Checksum.CRC32C, 2, 0x1122334455L, 7, sum);
        byte[] b = bp.toBytes();
        assertEquals(128, b.length);
        assertEquals("01000000" + "02000000" + "0000400000000000", HEX.formatHex(b, 0, 16));
        assertEquals("00000000" + "02000000" + "0000800000000000", HEX.formatHex(b, 16, 32));
        assertEquals("00".repeat(16), HEX.formatHex(b, 32, 48));
        assertEquals("00400000" + "88130000" + "02" + "01" + "01" + "02" + "00000000", HEX.formatHex(b, 48, 64));
        assertEquals("5544332211000000" + "0700000000000000", HEX.formatHex(b, 64, 80));
        assertEquals("aa", HEX.formatHex(b, 80, 81));
        assertEquals("bb", HEX.formatHex(b, 111, 112));
        assertEquals("00".repeat(16), HEX.formatHex(b, 112, 128));
        assertEquals(bp, BlockPointer.fromBytes(b));
        assertArrayEquals(new byte[128], BlockPointer.HOLE.toBytes());
        assertTrue(BlockPointer.fromBytes(new byte[128]).isHole());
    }

    @Test
    void blockPointerRejectsBadSizes() {
        byte[] b = new BlockPointer(new Dva[] {new Dva(0, 4096 * 1024, 4096), Dva.EMPTY, Dva.EMPTY}, 4096, 4096,
                BlockType.FILE_DATA, Compression.OFF, Checksum.CRC32C, 0, 1, 1, new byte[32]).toBytes();
        b[52] = 1; // psize 4097 > asize and != lsize uncompressed
        b[53] = 0x10;
        assertThrows(FormatException.class, () -> BlockPointer.fromBytes(b));
    }

    static Label label() {
        return new Label(Label.ACTIVE, 0x0102030405060708L, 0x1111L, 5, 1000, 64L << 20, 0,
                List.of(new Label.DeviceEntry(0x1111L, 64L << 20), new Label.DeviceEntry(0x2222L, 128L << 20)), "tank");
    }

    @Test
    void labelBytes() throws Exception {
        byte[] b = label().encode();
        assertEquals(4096, b.length);
        assertEquals("RFPOOLLB", new String(b, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, bb.getInt(8));
        assertEquals(0, bb.getInt(12));
        assertEquals("0807060504030201", HEX.formatHex(b, 16, 24));
        assertEquals(0x1111L, bb.getLong(24));
        assertEquals(5, bb.getLong(32));
        assertEquals(64L << 20, bb.getLong(48));
        assertEquals(2, bb.getInt(60));
        assertEquals("tank", new String(b, 64, 4, java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(0, b[68]);
        assertEquals(0x2222L, bb.getLong(144));
        assertEquals(128L << 20, bb.getLong(152));
        long crc = Integer.toUnsignedLong(Checksum.crc32c(b, 0, 4088));
        assertEquals(crc, bb.getLong(4088));
        assertEquals(label(), Label.decode(b));
    }

    @Test
    void labelChecksumAndVersionAreChecked() {
        byte[] b = label().encode();
        b[100] ^= 1;
        FormatException e = assertThrows(FormatException.class, () -> Label.decode(b));
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
        byte[] newer = label().encode();
        ByteBuffer bb = ByteBuffer.wrap(newer).order(ByteOrder.LITTLE_ENDIAN);
        bb.putInt(8, 3);
        bb.putLong(4088, Integer.toUnsignedLong(Checksum.crc32c(newer, 0, 4088)));
        e = assertThrows(FormatException.class, () -> Label.decode(newer));
        assertEquals("pool format version 3 is newer than this ringfuse supports (2); upgrade ringfuse", e.getMessage());
        e = assertThrows(FormatException.class, () -> Label.decode(new byte[4096]));
        assertTrue(e.getMessage().contains("not a ringfuse pool"), e.getMessage());
    }

    /** A stripe pool's label is exactly what format version 1 wrote: version 1, zeros where the layout goes. */
    @Test
    void stripeLabelStaysVersionOne() throws Exception {
        byte[] b = label().encode();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, bb.getInt(8));
        assertArrayEquals(new byte[4088 - 1152], java.util.Arrays.copyOfRange(b, 1152, 4088));
        assertTrue(Label.decode(b).isStripe());
        assertEquals(List.of(0, 1), Label.decode(b).vdevs());
    }

    @Test
    void mirrorLabelBytes() throws Exception {
        List<Label.DeviceEntry> devs = List.of(new Label.DeviceEntry(0x1111L, 64L << 20), new Label.DeviceEntry(0x2222L, 64L << 20),
                new Label.DeviceEntry(0x3333L, 64L << 20), new Label.DeviceEntry(0x4444L, 64L << 20));
        Label m = new Label(Label.ACTIVE, 0x0102030405060708L, 0x3333L, 7, 1000, 64L << 20, 2, devs, "tank", List.of(0, 0, 1, 1));
        byte[] b = m.encode();
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(2, bb.getInt(8), "a pool with mirrors is format version 2: version-1 readers refuse it");
        assertEquals(1, bb.getInt(1152), "layout: grouped");
        assertEquals(2, bb.getInt(1156), "two top-level vdevs");
        assertEquals("00000101", HEX.formatHex(b, 1160, 1164));
        assertArrayEquals(new byte[4088 - 1164], java.util.Arrays.copyOfRange(b, 1164, 4088));
        Label back = Label.decode(b);
        assertEquals(m, back);
        assertEquals(List.of(2, 3), back.sidesOf(1));
        assertEquals(2, back.vdevCount());
        // a version-1 label with a layout set, or a version-2 label without, is damaged
        bb.putInt(8, 1);
        bb.putLong(4088, Integer.toUnsignedLong(Checksum.crc32c(b, 0, 4088)));
        FormatException e = assertThrows(FormatException.class, () -> Label.decode(b));
        assertTrue(e.getMessage().contains("layout"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Label(Label.ACTIVE, 1, 0x1111L, 0, 0, 64L << 20, 0, devs, "t",
                List.of(0, 0, 2, 2)));
    }

    @Test
    void uberblockBytes() throws Exception {
        BlockPointer mos = new BlockPointer(new Dva[] {new Dva(0, 4 << 20, 4096), new Dva(0, 36 << 20, 4096), Dva.EMPTY},
                4096, 4096, BlockType.MOS, Compression.OFF, Checksum.CRC32C, 0, 9, 0, new byte[32]);
        Uberblock u = new Uberblock(9, 0x77, 1234, 0x3333, mos);
        byte[] b = u.encode();
        assertEquals("RFPOOLUB", new String(b, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(9, bb.getLong(16));
        assertEquals(0x77, bb.getLong(24));
        assertEquals(1234, bb.getLong(32));
        assertEquals(0x3333, bb.getLong(40));
        assertArrayEquals(mos.toBytes(), java.util.Arrays.copyOfRange(b, 48, 176));
        assertArrayEquals(new byte[4088 - 176], java.util.Arrays.copyOfRange(b, 176, 4088));
        assertEquals(u.txg(), Uberblock.decode(b).txg());
        assertEquals(mos, Uberblock.decode(b).mos());
    }

    @Test
    void layoutPlaces() {
        long usable = Layout.usable((100L << 20) + 12345);
        assertEquals(100L << 20, usable);
        assertEquals(0, Layout.labelOffset(0, usable));
        assertEquals(256 * 1024, Layout.labelOffset(1, usable));
        assertEquals(usable - 512 * 1024, Layout.labelOffset(2, usable));
        assertEquals(usable - 256 * 1024, Layout.labelOffset(3, usable));
        assertEquals(usable - 256 * 1024 + 128 * 1024 + 5 * 4096, Layout.uberblockOffset(3, usable, 37));
    }

    @Test
    void compressionKeepsOnlyWhatSavesASector() throws Exception {
        byte[] zeros = new byte[65536];
        byte[] c = Compression.LZ4.compressIfSmaller(zeros, zeros.length, 4096);
        assertTrue(c != null && c.length < 4096);
        assertArrayEquals(zeros, Compression.LZ4.decompress(c, c.length, zeros.length));
        byte[] z = Compression.ZSTD.compressIfSmaller(zeros, zeros.length, 4096);
        assertArrayEquals(zeros, Compression.ZSTD.decompress(z, z.length, zeros.length));
        byte[] random = new byte[8192];
        new java.util.Random(1).nextBytes(random);
        assertEquals(null, Compression.LZ4.compressIfSmaller(random, random.length, 4096));
        assertThrows(FormatException.class, () -> Compression.LZ4.decompress(new byte[] {(byte) 0xF0, 1, 2}, 3, 100));
    }

    @Test
    void compressionKeepsOnlyWhatSavesAnEighth() throws Exception {
        java.util.Random r = new java.util.Random(7);
        // fio's default data in miniature: random but for a 4 KiB run of zeros, ~3 % to gain
        byte[] almost = new byte[128 << 10];
        r.nextBytes(almost);
        java.util.Arrays.fill(almost, 60_000, 64_096, (byte) 0);
        for (Compression c : new Compression[] {Compression.LZ4, Compression.ZSTD}) {
            assertEquals(null, c.compressIfSmaller(almost, almost.length, 4096), c + ": saves less than an eighth");
        }
        // a quarter zeros in 32 runs: saved, whatever the algorithm, and read back exactly
        byte[] quarter = new byte[128 << 10];
        r.nextBytes(quarter);
        for (int i = 0; i < 32; i++) java.util.Arrays.fill(quarter, i * 4096, i * 4096 + 1024, (byte) 0);
        for (Compression c : new Compression[] {Compression.LZ4, Compression.ZSTD}) {
            byte[] z = c.compressIfSmaller(quarter, quarter.length, 4096);
            assertTrue(z != null && z.length <= quarter.length - quarter.length / 8, c + ": saves a quarter");
            assertArrayEquals(quarter, c.decompress(z, z.length, quarter.length));
        }
        // an incompressible head (a header, an image) and zeros after: the probe's slices still see the zeros
        byte[] head = new byte[128 << 10];
        r.nextBytes(head);
        java.util.Arrays.fill(head, 16 << 10, head.length, (byte) 0);
        byte[] h = Compression.LZ4.compressIfSmaller(head, head.length, 4096);
        assertTrue(h != null && h.length < 20 << 10, "head then zeros compresses");
        assertArrayEquals(head, Compression.LZ4.decompress(h, h.length, head.length));
        // below the probe's size the whole block decides: 10 KiB random + 6 KiB zeros fits in 12 KiB
        byte[] small = new byte[16 << 10];
        r.nextBytes(small);
        java.util.Arrays.fill(small, 10 << 10, small.length, (byte) 0);
        byte[] s = Compression.LZ4.compressIfSmaller(small, small.length, 4096);
        assertTrue(s != null && s.length <= 12 << 10);
        assertArrayEquals(small, Compression.LZ4.decompress(s, s.length, small.length));
    }

    @Test
    void checksums() {
        byte[] data = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        // CRC32C check value of "123456789" is 0xE3069283
        assertEquals("839206e3", HEX.formatHex(Checksum.CRC32C.compute(data, 0, 9), 0, 4));
        assertEquals("15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225",
                HEX.formatHex(Checksum.SHA256.compute(data, 0, 9)));
    }
}
