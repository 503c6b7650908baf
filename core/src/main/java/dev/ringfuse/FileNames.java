package dev.ringfuse;

import java.nio.charset.StandardCharsets;

/**
 * File names as the kernel has them (bytes, any but '/' and NUL) and as Java has them (Strings), without
 * loss. Valid UTF-8 decodes as usual; each byte of an invalid sequence decodes to the lone surrogate
 * U+DC80..U+DCFF (Python's "surrogateescape"), and {@link #encode} turns those back into the original
 * bytes, so {@code encode(decode(b))} equals {@code b} for every name. ringfuse decodes request names with
 * {@link #decode} and encodes reply names with {@link #encode}; filesystems that talk to the real disk
 * (passthrough) should use the same pair.
 */
public final class FileNames {
    private FileNames() {}

    /** Decodes {@code len} bytes at {@code off}. */
    public static String decode(byte[] b, int off, int len) {
        int end = off + len;
        boolean ascii = true;
        for (int i = off; i < end && ascii; i++) ascii = b[i] >= 0;
        if (ascii) return new String(b, off, len, StandardCharsets.ISO_8859_1);
        StringBuilder s = new StringBuilder(len);
        int i = off;
        while (i < end) {
            int c = b[i] & 0xff;
            int n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
            int cp = validSequence(b, i, end, n);
            if (cp < 0) {
                s.append((char) (0xdc00 + c)); // escape one byte and resynchronise on the next
                i++;
            } else {
                s.appendCodePoint(cp);
                i += n;
            }
        }
        return s.toString();
    }

    /** Decodes a whole array. */
    public static String decode(byte[] b) {
        return decode(b, 0, b.length);
    }

    /** The code point of the {@code n}-byte sequence at {@code i}, or -1 if it is not valid UTF-8. */
    private static int validSequence(byte[] b, int i, int end, int n) {
        if (n == 0 || i + n > end) return -1;
        int c = b[i] & 0xff;
        if (n == 1) return c;
        int cp = c & (0x7f >> n);
        for (int k = 1; k < n; k++) {
            int cc = b[i + k] & 0xff;
            if ((cc & 0xc0) != 0x80) return -1;
            cp = (cp << 6) | (cc & 0x3f);
        }
        // overlong forms, UTF-16 surrogates and values past U+10FFFF are not valid UTF-8
        if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return -1;
        if (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) return -1;
        return cp;
    }

    /** Encodes a name back into the bytes it came from. */
    public static byte[] encode(String name) {
        int len = name.length();
        boolean ascii = true;
        for (int i = 0; i < len && ascii; i++) ascii = name.charAt(i) < 0x80;
        if (ascii) return name.getBytes(StandardCharsets.ISO_8859_1);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(len * 3);
        for (int i = 0; i < len; i++) {
            char ch = name.charAt(i);
            if (Character.isHighSurrogate(ch) && i + 1 < len && Character.isLowSurrogate(name.charAt(i + 1))) {
                put(out, Character.toCodePoint(ch, name.charAt(++i)));
            } else if (ch >= 0xdc80 && ch <= 0xdcff) {
                out.write(ch - 0xdc00);
            } else if (Character.isSurrogate(ch)) {
                put(out, 0xfffd); // a lone surrogate that no decode produced: not representable
            } else {
                put(out, ch);
            }
        }
        return out.toByteArray();
    }

    /** The length of {@link #encode}{@code (name)}. */
    public static int encodedLength(String name) {
        return encode(name).length;
    }

    private static void put(java.io.ByteArrayOutputStream out, int cp) {
        if (cp < 0x80) {
            out.write(cp);
        } else if (cp < 0x800) {
            out.write(0xc0 | cp >> 6);
            out.write(0x80 | cp & 0x3f);
        } else if (cp < 0x10000) {
            out.write(0xe0 | cp >> 12);
            out.write(0x80 | cp >> 6 & 0x3f);
            out.write(0x80 | cp & 0x3f);
        } else {
            out.write(0xf0 | cp >> 18);
            out.write(0x80 | cp >> 12 & 0x3f);
            out.write(0x80 | cp >> 6 & 0x3f);
            out.write(0x80 | cp & 0x3f);
        }
    }
}
