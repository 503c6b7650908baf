package dev.ringfuse.pool.txg;

import java.util.Map;

/** Dataset properties: names, defaults, validation (zfs conventions). */
public final class Properties {
    private Properties() {}

    public static final Map<String, String> DEFAULTS = Map.of(
            "compression", "off",
            "checksum", "crc32c",
            "recordsize", "128K",
            "atime", "off",
            "quota", "none",
            "reservation", "none");

    /** Properties that apply to the dataset that has them only: not inherited by its children (as in ZFS). */
    public static final java.util.Set<String> LOCAL_ONLY = java.util.Set.of("quota", "reservation");

    /** Sizes in bytes (quota, reservation). */
    public static final java.util.Set<String> SIZES = java.util.Set.of("quota", "reservation");

    /**
     * Checks a property assignment; returns the normalised value, or null when the assignment clears the
     * property ({@code none} or 0 for a quota or reservation).
     */
    public static String validate(String name, String value) {
        if (SIZES.contains(name)) {
            if (value.equalsIgnoreCase("none")) return null;
            long n = parseSize(value);
            if (n < 0) throw new IllegalArgumentException(name + " must not be negative");
            return n == 0 ? null : Long.toString(n);
        }
        switch (name) {
            case "compression" -> dev.ringfuse.pool.format.Compression.ofName(value);
            case "checksum" -> dev.ringfuse.pool.format.Checksum.ofName(value);
            case "recordsize" -> {
                long n = parseSize(value);
                if (n < 4096 || n > 1 << 20 || Long.bitCount(n) != 1) {
                    throw new IllegalArgumentException("recordsize must be a power of two from 4K to 1M");
                }
            }
            case "atime" -> {
                if (!value.equals("on") && !value.equals("off")) throw new IllegalArgumentException("atime is on or off");
            }
            default -> throw new IllegalArgumentException("unknown property '" + name + "' (" + String.join(", ", DEFAULTS.keySet()) + ")");
        }
        return value.toLowerCase(java.util.Locale.ROOT);
    }

    /** A stored quota or reservation in bytes; 0 for none. */
    public static long bytesOrNone(String stored) {
        if (stored == null || stored.equals("none")) return 0;
        return parseSize(stored);
    }

    /** "128K", "1M", "4096", "1.5G" → bytes. */
    public static long parseSize(String s) {
        String t = s.trim().toUpperCase(java.util.Locale.ROOT);
        long mult = 1;
        if (t.endsWith("B")) t = t.substring(0, t.length() - 1);
        char c = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
        switch (c) {
            case 'K' -> mult = 1L << 10;
            case 'M' -> mult = 1L << 20;
            case 'G' -> mult = 1L << 30;
            case 'T' -> mult = 1L << 40;
            default -> { }
        }
        if (mult != 1) t = t.substring(0, t.length() - 1);
        try {
            if (t.contains(".")) return (long) (Double.parseDouble(t) * mult);
            return Math.multiplyExact(Long.parseLong(t), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("bad size '" + s + "'");
        }
    }
}
