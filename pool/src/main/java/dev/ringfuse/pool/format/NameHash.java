package dev.ringfuse.pool.format;

import java.nio.charset.StandardCharsets;

/**
 * h(name): FNV-1a 64 with the low 8 bits and the top 2 bits cleared, never below 0x100 (DESIGN.md, "Dataset
 * directory"). Readdir cookies are h | index: positive as signed 64-bit offsets, which the VFS needs.
 */
public final class NameHash {
    private NameHash() {}

    public static long of(String name) {
        return of(name.getBytes(StandardCharsets.UTF_8));
    }

    public static long of(byte[] name) {
        long h = 0xcbf29ce484222325L;
        for (byte x : name) {
            h ^= x & 0xFF;
            h *= 0x100000001b3L;
        }
        h &= 0x3FFF_FFFF_FFFF_FF00L;
        return h < 0x100 ? 0x100 : h;
    }
}
