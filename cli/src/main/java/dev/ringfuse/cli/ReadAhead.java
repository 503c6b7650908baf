package dev.ringfuse.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's readahead window of one FUSE mount: {@code /sys/class/bdi/0:MINOR/read_ahead_kb} of the backing
 * device the kernel made for that mount (it lives and dies with the mount). The kernel starts every FUSE mount at
 * 128 KiB (the bdi default) and a server cannot raise it in INIT: the kernel takes the smaller of its own value and
 * the server's {@code max_readahead}. Root may set it afterwards, as for any bdi (mergerfs's {@code readahead}
 * option does the same); btrfs gives its own mounts at least 4 MiB. A sequential reader then gets READs of up to
 * max_pages (1 MiB here) instead of 128 KiB: 8x fewer requests (pool/DESIGN.md, "Read path").
 */
final class ReadAhead {
    private ReadAhead() { }

    /** The bdi file of the mount at {@code mountpoint} (the device number of its root). */
    static Path bdiFile(Path mountpoint) throws IOException {
        long dev = ((Number) Files.getAttribute(mountpoint, "unix:dev")).longValue();
        // glibc's dev_t encoding (gnu_dev_major/minor)
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        return Path.of("/sys/class/bdi", major + ":" + minor, "read_ahead_kb");
    }

    /** Sets the window to {@code bytes} (rounded down to KiB); returns null, or why it could not (for a note). */
    static String apply(Path mountpoint, long bytes) {
        try {
            Path f = bdiFile(mountpoint);
            Files.writeString(f, Long.toString(bytes / 1024));
            return null;
        } catch (IOException | RuntimeException e) {
            return "readahead left at the kernel's default: " + e.getMessage()
                    + (dev.ringfuse.sys.Libc.getuid() != 0 ? " (only root may set a mount's readahead)" : "");
        }
    }
}
