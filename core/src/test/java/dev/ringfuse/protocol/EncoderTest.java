package dev.ringfuse.protocol;

import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.StatFs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Byte-exact reply bodies. */
class EncoderTest {
    private static final Attr ATTR = new Attr(42, 0100644, 1, 1000, 100, 0, 5000, 16, 4096,
            1_700_000_001L, 11, 1_700_000_002L, 22, 1_700_000_003L, 33, 1_700_000_000L, 44);

    private static MemorySegment buf() {
        MemorySegment s = Arena.ofAuto().allocate(8192, 8);
        s.fill((byte) 0xEE); // stale bytes must not survive into a reply
        return s;
    }

    private static byte[] attrBytes() {
        return Bytes.of().u64(42).u64(5000).u64(16).u64(1_700_000_001L).u64(1_700_000_002L).u64(1_700_000_003L)
                .u32(11).u32(22).u32(33).u32(0100644).u32(1).u32(1000).u32(100).u32(0).u32(4096).u32(0).bytes();
    }

    private static byte[] first(MemorySegment s, int n) {
        return s.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void attrOut() {
        MemorySegment b = buf();
        int n = Encoder.attrOut(b, ATTR, 1_500_000_000L);
        assertEquals(104, n);
        assertArrayEquals(Bytes.of().u64(1).u32(500_000_000).u32(0).raw(attrBytes()).bytes(), first(b, n));
    }

    @Test
    void entryOut() {
        MemorySegment b = buf();
        int n = Encoder.entry(b, 0, new Entry(42, 7, ATTR, 2_000_000_000L, 250_000_000L));
        assertEquals(128, n);
        assertArrayEquals(Bytes.of().u64(42).u64(7).u64(2).u64(0).u32(0).u32(250_000_000).raw(attrBytes()).bytes(), first(b, n));
        MemorySegment neg = buf();
        Encoder.entry(neg, 0, new Entry(0, 0, null, 1_000_000_000L, 0));
        assertArrayEquals(Bytes.of().u64(0).u64(0).u64(1).u64(0).u32(0).u32(0).zeros(88).bytes(), first(neg, 128));
    }

    @Test
    void openAndCreate() {
        MemorySegment b = buf();
        int n = Encoder.entry(b, 0, new Entry(42, 1, ATTR, 0, 0));
        n += Encoder.openOut(b, n, 0x1234, 1 | 128, 3);
        assertEquals(144, n);
        assertArrayEquals(Bytes.of().u64(0x1234).u32(129).u32(3).bytes(), Arrays.copyOfRange(first(b, n), 128, 144));
    }

    @Test
    void smallReplies() {
        MemorySegment b = buf();
        assertArrayEquals(Bytes.of().u32(4096).u32(0).bytes(), first(b, Encoder.writeOut(b, 4096)));
        assertArrayEquals(Bytes.of().u64(1L << 33).bytes(), first(b, Encoder.u64(b, 1L << 33)));
        assertArrayEquals(Bytes.of().u32(77).u32(0).bytes(), first(b, Encoder.xattrSize(b, 77)));
        assertArrayEquals(Bytes.of().u32(1).u32(0).bytes(), first(b, Encoder.pollOut(b, 1)));
        assertArrayEquals(Bytes.of().u64(5).u64(Long.MAX_VALUE).u32(1).u32(99).bytes(),
                first(b, Encoder.lkOut(b, new FileLock(5, FileLock.TO_EOF, 1, 99))));
        assertArrayEquals(Bytes.of().u32(-25).u32(0).u32(0).u32(0).raw((byte) 9).bytes(),
                first(b, Encoder.ioctlOut(b, -25, new byte[] {9})));
    }

    @Test
    void statfs() {
        MemorySegment b = buf();
        int n = Encoder.statfs(b, new StatFs(1000, 900, 800, 50, 40, 4096, 255, 4096));
        assertEquals(80, n);
        assertArrayEquals(Bytes.of().u64(1000).u64(900).u64(800).u64(50).u64(40).u32(4096).u32(255).u32(4096).u32(0)
                .zeros(24).bytes(), first(b, n));
    }

    @Test
    void statxOut() {
        MemorySegment b = buf();
        int n = Encoder.statxOut(b, ATTR, 0x7ff, 1_000_000_000L);
        assertEquals(288, n);
        byte[] sx = Bytes.of().u32(0x7ff).u32(4096).u64(0).u32(1).u32(1000).u32(100).u16(0100644).u16(0).u64(42)
                .u64(5000).u64(16).u64(0)
                .u64(1_700_000_001L).u32(11).u32(0).u64(1_700_000_000L).u32(44).u32(0)
                .u64(1_700_000_003L).u32(33).u32(0).u64(1_700_000_002L).u32(22).u32(0)
                .u32(0).u32(0).u32(0).u32(0).zeros(112).bytes();
        assertArrayEquals(Bytes.of().u64(1).u32(0).u32(0).zeros(16).raw(sx).bytes(), first(b, n));
    }

    @Test
    void direntPacking() {
        MemorySegment b = buf();
        DirentPacker p = new DirentPacker(b, 4096, false);
        assertTrue(p.add("a", 5, 0100644, 1, null));
        assertTrue(p.add("dir", 6, 0040755, 2, null));
        assertEquals(64, p.size());
        assertArrayEquals(Bytes.of().u64(5).u64(1).u32(1).u32(8).str("a").zeros(7)
                .u64(6).u64(2).u32(3).u32(4).str("dir").zeros(5).bytes(), first(b, 64));
        DirentPacker tight = new DirentPacker(buf(), 40, false);
        assertTrue(tight.add("a", 5, 0100644, 1, null));
        assertFalse(tight.add("b", 6, 0100644, 2, null), "a record is never split");
        assertEquals(32, tight.size());
        assertThrows(IllegalArgumentException.class, () -> p.add("a/b", 1, 0, 3, null));
        assertThrows(IllegalArgumentException.class, () -> p.add("", 1, 0, 3, null));
    }

    @Test
    void direntPlusPacking() {
        MemorySegment b = buf();
        DirentPacker p = new DirentPacker(b, 4096, true);
        assertTrue(p.add("file", 42, 0100644, 9, new Entry(42, 3, ATTR, 1_000_000_000L, 1_000_000_000L)));
        assertEquals(160, p.size());
        byte[] entry = Bytes.of().u64(42).u64(3).u64(1).u64(1).u32(0).u32(0).raw(attrBytes()).bytes();
        assertArrayEquals(Bytes.of().raw(entry).u64(42).u64(9).u32(4).u32(8).str("file").zeros(4).bytes(), first(b, 160));
    }
}
