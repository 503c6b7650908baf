package dev.ringfuse.fs.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Sizes as users write them on command lines and in mount options (1G, 512m, 4096, 50%). */
public final class Sizes {
    private Sizes() {}

    /** What a size looks like, for error messages. */
    public static final String FORMAT = "a whole number of bytes with an optional unit k, m, g or t "
            + "(powers of 1024, any case, optionally followed by B or iB), e.g. 4096, 512M, 1G";

    /**
     * Parses {@code 4096}, {@code 512k}, {@code 512M}, {@code 1G}, {@code 1GiB}, {@code 2t}.
     *
     * @throws IllegalArgumentException saying what a size looks like, for anything else or one that does
     *         not fit in 63 bits
     */
    public static long parse(String what, String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("IB")) t = t.substring(0, t.length() - 2);
        else if (t.endsWith("B") && t.length() > 1 && !Character.isDigit(t.charAt(t.length() - 2))) t = t.substring(0, t.length() - 1);
        int shift = 0;
        if (!t.isEmpty()) {
            shift = switch (t.charAt(t.length() - 1)) {
                case 'K' -> 10;
                case 'M' -> 20;
                case 'G' -> 30;
                case 'T' -> 40;
                default -> 0;
            };
        }
        if (shift > 0) t = t.substring(0, t.length() - 1);
        if (t.isEmpty() || !t.chars().allMatch(Character::isDigit) || t.length() > 19) {
            throw new IllegalArgumentException(what + " \"" + s + "\" is not a size: " + FORMAT);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), 1L << shift);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(what + " \"" + s + "\" is too large (the limit is 8 EiB)");
        }
    }

    /** As {@link #parse}, and also {@code N%}: N percent of the machine's RAM (as tmpfs's size=). */
    public static long parseOrPercentOfRam(String what, String s) {
        String t = s.trim();
        if (!t.endsWith("%")) return parse(what, s);
        String n = t.substring(0, t.length() - 1);
        if (n.isEmpty() || !n.chars().allMatch(Character::isDigit) || n.length() > 6) {
            throw new IllegalArgumentException(what + " \"" + s + "\" is not a size: " + FORMAT + ", or a percentage of RAM such as 50%");
        }
        return Math.multiplyExact(totalRam(), Long.parseLong(n)) / 100;
    }

    /** MemTotal from /proc/meminfo, in bytes. */
    public static long totalRam() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through: no /proc
        }
        return Runtime.getRuntime().maxMemory();
    }
}
