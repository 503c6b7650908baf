package dev.ringfuse.pool.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Facts about a device path from sysfs: block device or file, logical block size. */
final class DeviceInfo {
    private DeviceInfo() {}

    /** The logical block size of a block device (sysfs), or 512 for a regular file (the pool aligns to 4096 anyway). */
    static int logicalBlockSize(Path path) {
        try {
            if (!Boolean.TRUE.equals(Files.getAttribute(path, "unix:isOther")) && Files.isRegularFile(path)) return 512;
            long rdev = (Long) Files.getAttribute(path, "unix:rdev");
            long major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfffL);
            long minor = (rdev & 0xff) | ((rdev >> 12) & ~0xffL);
            Path dev = Path.of("/sys/dev/block/" + major + ":" + minor);
            Path q = dev.resolve("queue/logical_block_size");
            if (!Files.exists(q)) q = dev.resolve("../queue/logical_block_size");
            return Integer.parseInt(Files.readString(q).trim());
        } catch (IOException | RuntimeException e) {
            return 512;
        }
    }
}
