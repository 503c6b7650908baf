package dev.ringfuse.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether the process's cgroup, or one above it, limits its CPU time (cgroup v2 cpu.max, v1 cfs_quota). */
final class CpuQuota {
    private CpuQuota() {}

    /**
     * The first quota found from the process's cgroup up to the root, as the file says it, or null if none
     * (or if the files cannot be read: a quota we cannot see is one we cannot spend).
     *
     * @param procCgroup {@code /proc/self/cgroup}
     * @param root       where the cgroup hierarchies are mounted, {@code /sys/fs/cgroup}
     */
    static String of(Path procCgroup, Path root) {
        try {
            for (String line : Files.readAllLines(procCgroup)) {
                String[] f = line.split(":", 3);
                if (f.length != 3) continue;
                if (f[0].equals("0") && f[1].isEmpty()) {
                    String q = up(root, f[2], "cpu.max", v -> !v.startsWith("max"));
                    if (q != null) return q;
                } else if (java.util.Arrays.asList(f[1].split(",")).contains("cpu")) {
                    for (String mount : new String[] {"cpu", "cpu,cpuacct", "cpuacct,cpu"}) {
                        String q = up(root.resolve(mount), f[2], "cpu.cfs_quota_us", v -> !v.equals("-1"));
                        if (q != null) return q;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /** Walks from {@code root/group} up to {@code root}, returning the first {@code file} whose value limits. */
    private static String up(Path root, String group, String file, java.util.function.Predicate<String> limits) {
        Path dir = root.resolve(group.startsWith("/") ? group.substring(1) : group).normalize();
        if (!dir.startsWith(root)) return null;
        for (; dir != null && dir.startsWith(root); dir = dir.getParent()) {
            try {
                String v = Files.readString(dir.resolve(file)).strip();
                if (limits.test(v)) return file + " " + v;
            } catch (IOException missing) {
                // not this level (v1 hierarchies without the file, or the mount absent)
            }
        }
        return null;
    }
}
