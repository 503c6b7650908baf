package dev.ringfuse.transport.uring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's possible CPUs: FUSE-over-io_uring has one queue per possible CPU, whatever the JVM sees. */
public final class Cpus {
    private Cpus() {}

    /** The number of possible CPUs from /sys/devices/system/cpu/possible ("0-1", "0-3,8-11", ...). */
    public static int possible() {
        try {
            return count(Files.readString(Path.of("/sys/devices/system/cpu/possible")).trim());
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /** Highest CPU number + 1 of a cpulist: queue ids run 0..n-1 over it. */
    static int count(String list) {
        int max = -1;
        for (String part : list.split(",")) {
            String[] range = part.split("-");
            max = Math.max(max, Integer.parseInt(range[range.length - 1].trim()));
        }
        return max + 1;
    }
}
