package dev.ringfuse.sys;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The FUSE mounts this process serves, by their device number, each with the filesystem object that serves it and
 * a descriptor of the directory it covers (opened before the mount).
 *
 * <p>Why: a filesystem whose own calls can reach one of its mounts sends a request to itself and waits for the
 * answer. A passthrough source that contains its mount point does that at the mount point's name (mirroring {@code /}
 * at {@code /mnt/x}): the lookup's statx of the crossed mount is a GETATTR of the mount's own root, and over io_uring
 * it goes to the queue of the very thread that waits for it, which no unmount or abort ends (the thread stays in D
 * state, the process a zombie). Such a filesystem asks here before it crosses into a mount whose device is one of
 * these; the answer needs no request to anyone, since the device number comes from statx with AT_STATX_DONT_SYNC.
 */
public final class ServedMounts {
    /** One served mount: who serves it, and an O_PATH descriptor of the directory under it (-1: none). */
    public record Served(Object filesystem, int coveredFd) {}

    private static final Map<Long, Served> BY_DEVICE = new ConcurrentHashMap<>();

    private ServedMounts() {}

    private static long key(int major, int minor) {
        return ((long) major << 32) | Integer.toUnsignedLong(minor);
    }

    /** The mount with device {@code major:minor} is served by {@code filesystem} from now on. */
    public static void add(int major, int minor, Object filesystem, int coveredFd) {
        BY_DEVICE.put(key(major, minor), new Served(filesystem, coveredFd));
    }

    /**
     * The mount of {@code filesystem} ended: forgets it (not a later mount that got the same device number) and
     * closes its covered directory's descriptor.
     */
    public static void remove(int major, int minor, Object filesystem) {
        long k = key(major, minor);
        Served s = BY_DEVICE.get(k);
        if (s == null || s.filesystem != filesystem || !BY_DEVICE.remove(k, s)) return;
        if (s.coveredFd >= 0) Libc.close(s.coveredFd);
    }

    /** The mount this process serves with device {@code major:minor}, or null. */
    public static Served at(int major, int minor) {
        return BY_DEVICE.get(key(major, minor));
    }
}
