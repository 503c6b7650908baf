package dev.ringfuse.cli;

import dev.ringfuse.mount.MountInfo;
import dev.ringfuse.sys.Libc;
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

    /**
     * The bdi file of the FUSE mount at {@code mountpoint} (the topmost mount there, by /proc/self/mountinfo); an
     * IOException if that is not a FUSE mount: the window of anything else (the disk under a mount that already
     * went away, say) is not ours to change.
     */
    static Path bdiFile(Path mountpoint) throws IOException {
        MountInfo m = MountInfo.at(mountpoint).filter(MountInfo::isFuse)
                .orElseThrow(() -> new IOException("no FUSE mount at " + mountpoint));
        return Path.of("/sys/class/bdi", m.major() + ":" + m.minor(), "read_ahead_kb");
    }

    /** Sets the window to {@code bytes} (rounded down to KiB); returns null, or why it could not (for a note). */
    static String apply(Path mountpoint, long bytes) {
        if (Libc.geteuid() != 0) return "readahead left at the kernel's default: only root may set a mount's readahead";
        try {
            Files.writeString(bdiFile(mountpoint), Long.toString(bytes / 1024));
            return null;
        } catch (IOException | RuntimeException e) {
            return "readahead left at the kernel's default: " + e.getMessage();
        }
    }
}
