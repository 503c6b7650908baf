package dev.ringfuse.fs.memfs;

import dev.ringfuse.fs.io.Sizes;
import java.util.ArrayList;
import java.util.List;

/**
 * tmpfs's mount options for memfs: {@code size=N[k|m|g|t|%]}, {@code nr_inodes=N[k|m|g]}, {@code mode=OCTAL},
 * {@code uid=N}, {@code gid=N}, with tmpfs's meanings: size and nr_inodes of 0 mean unlimited, {@code %} is
 * of the machine's RAM, mode/uid/gid are the root directory's. statfs reports size and nr_inodes; a write
 * or create beyond them fails with ENOSPC.
 */
public final class TmpfsOptions {
    private TmpfsOptions() {}

    /** The options this class takes. */
    public static final List<String> NAMES = List.of("size", "nr_inodes", "mode", "uid", "gid");

    /**
     * Applies the tmpfs options among {@code options} to {@code b} and returns the others, in order.
     *
     * @throws IllegalArgumentException naming the option and saying what its value should look like
     */
    public static List<String> apply(MemFs.Options.Builder b, List<String> options) {
        List<String> rest = new ArrayList<>();
        for (String opt : options) {
            int eq = opt.indexOf('=');
            String key = eq < 0 ? opt : opt.substring(0, eq);
            if (!NAMES.contains(key)) {
                rest.add(opt);
                continue;
            }
            if (eq < 0) throw new IllegalArgumentException("mount option " + key + " needs a value: " + key + "=...");
            String v = opt.substring(eq + 1);
            switch (key) {
                case "size" -> {
                    long n = Sizes.parseOrPercentOfRam("size", v);
                    b.capacityBytes(n == 0 ? Long.MAX_VALUE : Math.max(n, Limits.BLOCK));
                }
                case "nr_inodes" -> {
                    String t = v.trim();
                    long n = Sizes.parse("nr_inodes", t);
                    b.maxInodes(n == 0 ? Long.MAX_VALUE : Math.max(n, 2));
                }
                case "mode" -> b.rootMode(number(key, v, 8, 07777));
                case "uid" -> b.rootUid(number(key, v, 10, Integer.MAX_VALUE - 1));
                case "gid" -> b.rootGid(number(key, v, 10, Integer.MAX_VALUE - 1));
                default -> throw new IllegalStateException(key);
            }
        }
        return rest;
    }

    private static int number(String key, String v, int radix, int max) {
        try {
            long n = Long.parseLong(v.trim(), radix);
            if (n >= 0 && n <= max) return (int) n;
        } catch (NumberFormatException e) {
            // the message below says what is wanted
        }
        throw new IllegalArgumentException("mount option " + key + "=" + v + ": expected "
                + (radix == 8 ? "an octal mode such as 1777 or 755" : "a number from 0 to " + max));
    }
}
