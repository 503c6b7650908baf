package dev.ringfuse.pool.fs;

/**
 * How long the kernel may keep a mounted dataset's names (entry timeout, negative entries too) and attributes
 * (attr timeout) without asking the pool again. Long by default: the mounting process is the dataset's only
 * writer and every change the kernel does not make itself is invalidated through the Notifier (DESIGN.md,
 * "The kernel's name and attribute cache"). Snapshot views keep {@link #SHORT}.
 */
public record CacheTimeouts(long entryNanos, long attrNanos) {
    /** An hour each: a stat or path walk on a cached name costs no round trip. */
    public static final CacheTimeouts DEFAULT = new CacheTimeouts(3600_000_000_000L, 3600_000_000_000L);
    /** One second each, the previous default. */
    public static final CacheTimeouts SHORT = new CacheTimeouts(1_000_000_000L, 1_000_000_000L);

    public CacheTimeouts {
        if (entryNanos < 0 || attrNanos < 0) throw new IllegalArgumentException("a cache timeout cannot be negative");
    }

    /**
     * {@code seconds} as given to {@code -o entry_timeout=} or {@code attr_timeout=} (a decimal number of seconds,
     * as libfuse takes them; 0 turns the cache off), in nanoseconds.
     * @throws IllegalArgumentException naming {@code option} for anything else
     */
    public static long parseSeconds(String option, String seconds) {
        double s;
        try {
            s = Double.parseDouble(seconds);
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException("mount option " + option + " takes seconds (a number such as 3600 or 0.5), not '" + seconds + "'");
        }
        if (!(s >= 0) || s > 1e9) throw new IllegalArgumentException("mount option " + option + " takes 0 to 1e9 seconds, not '" + seconds + "'");
        return Math.round(s * 1e9);
    }
}
