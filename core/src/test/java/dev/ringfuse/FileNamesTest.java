package dev.ringfuse;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Lossless names: valid UTF-8 decodes as usual, anything else round-trips byte for byte. */
class FileNamesTest {
    @Test
    void validUtf8DecodesAsUsual() {
        for (String s : new String[] {"plain", "ünï cødé", "日本語", "😀 emoji", "e\u0301", ""}) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            assertEquals(s, FileNames.decode(b));
            assertArrayEquals(b, FileNames.encode(s));
        }
    }

    @Test
    void invalidBytesBecomeEscapesAndComeBack() {
        byte[] b = {'b', 'a', 'd', (byte) 0xff, (byte) 0xfe};
        assertEquals("bad\udcff\udcfe", FileNames.decode(b));
        assertArrayEquals(b, FileNames.encode(FileNames.decode(b)));
        byte[] other = {'b', 'a', 'd', (byte) 0xfe, (byte) 0xff};
        assertNotEquals(FileNames.decode(b), FileNames.decode(other), "two invalid names stay distinct");
        // overlong '/', an encoded surrogate, a truncated sequence, a value past U+10FFFF
        for (byte[] bad : new byte[][] {{(byte) 0xc0, (byte) 0xaf}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                {(byte) 0xe6, (byte) 0x97}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}}) {
            assertArrayEquals(bad, FileNames.encode(FileNames.decode(bad)));
            assertTrue(FileNames.decode(bad).chars().allMatch(c -> c >= 0xdc80 && c <= 0xdcff));
        }
    }

    @Test
    void everyRandomByteStringRoundTrips() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[r.nextInt(1, 40)];
            r.nextBytes(b);
            assertArrayEquals(b, FileNames.encode(FileNames.decode(b)));
            assertEquals(b.length, FileNames.encodedLength(FileNames.decode(b)));
        }
    }
}
