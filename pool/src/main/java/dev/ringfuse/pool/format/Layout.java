package dev.ringfuse.pool.format;

/** Fixed places and sizes of the on-disk format (DESIGN.md, "Devices and labels"). */
public final class Layout {
    private Layout() {}

    /** Highest format version this code reads (DESIGN.md, "Config block"): 1 stripe pools, 2 pools with mirrors. */
    public static final int VERSION = 2;
    /** The version a stripe pool's config block (and every uberblock) is written with: unchanged since version 1. */
    public static final int STRIPE_VERSION = 1;
    public static final int SECTOR = 4096;
    public static final long LABEL_SIZE = 256 * 1024;
    public static final int UBERBLOCK_SLOTS = 32;
    public static final long RING_OFFSET = 128 * 1024;
    /** Blocks are allocated from here on. */
    public static final long ALLOC_START = 4L * 1024 * 1024;
    public static final long MIN_DEVICE = 64L * 1024 * 1024;
    public static final int MAX_DEVICES = 64;
    /** Most sides of one mirror. */
    public static final int MAX_MIRROR = 8;

    /** Usable size of a device of {@code size} bytes. */
    public static long usable(long size) {
        return size / LABEL_SIZE * LABEL_SIZE;
    }

    /** Byte offset of label {@code i} (0..3) on a device of usable size {@code usable}. */
    public static long labelOffset(int i, long usable) {
        return switch (i) {
            case 0 -> 0;
            case 1 -> LABEL_SIZE;
            case 2 -> usable - 2 * LABEL_SIZE;
            case 3 -> usable - LABEL_SIZE;
            default -> throw new IllegalArgumentException("label " + i);
        };
    }

    /** Byte offset of the uberblock slot for {@code txg} in label {@code i}. */
    public static long uberblockOffset(int label, long usable, long txg) {
        return labelOffset(label, usable) + RING_OFFSET + Math.floorMod(txg, UBERBLOCK_SLOTS) * (long) SECTOR;
    }

    /** End (exclusive) of the allocatable area. */
    public static long allocEnd(long usable) {
        return usable - 2 * LABEL_SIZE;
    }

    public static long roundUp(long n) {
        return (n + SECTOR - 1) / SECTOR * SECTOR;
    }

    /** Reads {@code s} as the 8-byte ASCII magic, little-endian. */
    public static long magic(String s) {
        long v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | (s.charAt(i) & 0xFF);
        return v;
    }
}
