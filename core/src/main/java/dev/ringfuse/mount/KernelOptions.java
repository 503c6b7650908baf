package dev.ringfuse.mount;

import dev.ringfuse.sys.Libc;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The -o options that go to the kernel (mount flags and FUSE mount data) rather than to the server. One list
 * for both mount methods, so that an option is known or refused the same way whether root mounts with
 * mount(2) or a user through fusermount3.
 */
public final class KernelOptions {
    private KernelOptions() {}

    /** Options that only root may use: fusermount3 ignores them for anyone else ("unsafe option"). */
    private static final List<String> PRIVILEGED = List.of("dev", "suid");

    /** Options for the server itself that travel in the extra list: never passed to the kernel. */
    private static final List<String> SERVER = List.of("io_flusher");

    /** The first option no mount method knows, if any. */
    public static Optional<String> unknown(List<String> extra) {
        for (String opt : extra) {
            if (flag(opt) == null && !isData(opt) && !isAccepted(opt) && !SERVER.contains(opt)) return Optional.of(opt);
        }
        return Optional.empty();
    }

    /**
     * The options an unprivileged mounter asked for that will be ignored, as fusermount3 ignores them: {@code
     * dev} and {@code suid} (a user must not make device nodes or setuid files of their own filesystem count).
     */
    public static List<String> privilegedOnly(List<String> extra) {
        return extra.stream().filter(PRIVILEGED::contains).toList();
    }

    /** The mount(2) flags: {@code base} changed by the flag options in {@code extra}, in order. */
    static long flags(List<String> extra, long base) {
        long flags = base;
        for (String opt : extra) {
            long[] f = flag(opt);
            if (f == null) continue;
            flags = f[1] == 0 ? flags & ~f[0] : flags | f[0];
        }
        return flags;
    }

    /** The options that go into the FUSE mount data string as they are. */
    static List<String> data(List<String> extra) {
        return extra.stream().filter(KernelOptions::isData).toList();
    }

    /** What fusermount3 gets: everything, minus the privileged options when the caller is not root. */
    static List<String> forFusermount(List<String> extra, boolean root) {
        List<String> out = new ArrayList<>();
        for (String opt : extra) {
            if (!root && PRIVILEGED.contains(opt)) continue;
            if ((isAccepted(opt) && !opt.equals("auto_unmount")) || SERVER.contains(opt)) continue;
            out.add(opt);
        }
        return out;
    }

    /** {flag bit, 1 to set or 0 to clear}, or null if {@code opt} is not a flag option. */
    private static long[] flag(String opt) {
        return switch (opt) {
            case "dev" -> new long[] {Libc.MS_NODEV, 0};
            case "nodev" -> new long[] {Libc.MS_NODEV, 1};
            case "suid" -> new long[] {Libc.MS_NOSUID, 0};
            case "nosuid" -> new long[] {Libc.MS_NOSUID, 1};
            case "exec" -> new long[] {Libc.MS_NOEXEC, 0};
            case "noexec" -> new long[] {Libc.MS_NOEXEC, 1};
            case "atime", "relatime" -> new long[] {1024, 0};
            case "noatime" -> new long[] {1024, 1};
            case "diratime" -> new long[] {2048, 0};
            case "nodiratime" -> new long[] {2048, 1};
            case "async" -> new long[] {16, 0};
            case "sync" -> new long[] {16, 1};
            case "dirsync" -> new long[] {128, 1};
            default -> null;
        };
    }

    private static boolean isData(String opt) {
        return opt.startsWith("max_read=") || opt.startsWith("blksize=");
    }

    /**
     * Accepted and without effect here: {@code nonempty} (mounting over a non-empty directory is allowed, as
     * libfuse 3 and mount(8) allow it), {@code auto_unmount} (fusermount3's), and what mount(8) and fstab
     * pass to a helper although they are for mount(8) itself ({@code defaults}, {@code auto}, {@code user},
     * {@code _netdev}, {@code nofail}, {@code x-*}, {@code comment=}).
     */
    private static boolean isAccepted(String opt) {
        return switch (opt) {
            case "nonempty", "auto_unmount", "defaults", "auto", "noauto", "user", "nouser", "users", "owner",
                 "group", "_netdev", "nofail", "loud", "silent" -> true;
            default -> opt.startsWith("x-") || opt.startsWith("comment=");
        };
    }
}
