package dev.ringfuse.mount;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** One line of /proc/self/mountinfo: the mount at a path, its type and device. */
public record MountInfo(Path mountpoint, String fsType, String source, int major, int minor) {

    /** True for fuse, fuseblk and fuse.* mounts. */
    public boolean isFuse() {
        return fsType.equals("fuse") || fsType.equals("fuseblk") || fsType.startsWith("fuse.");
    }

    /** The topmost mount whose mount point is exactly {@code path}, if any. */
    public static Optional<MountInfo> at(Path path) {
        String want = path.toString();
        MountInfo found = null;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                if (f.length < 10 || !unescape(f[4]).equals(want)) continue;
                int dash = line.indexOf(" - ");
                String[] tail = line.substring(dash + 3).split(" ");
                String[] dev = f[2].split(":");
                found = new MountInfo(path, tail[0], unescape(tail[1]), Integer.parseInt(dev[0]), Integer.parseInt(dev[1]));
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(found);
    }

    /** mountinfo escapes space, tab, newline and backslash as \ooo. */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
