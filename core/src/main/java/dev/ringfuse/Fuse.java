package dev.ringfuse;

import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.session.Server;
import java.nio.file.Path;

/** Mounts filesystems. */
public final class Fuse {
    private Fuse() {}

    /**
     * Mounts {@code fs} at {@code mountpoint} and serves it on background threads. Returns once the kernel's
     * INIT has been answered, so the mount is usable.
     *
     * @throws MountException with a message that says what to do: missing or non-directory mount point,
     *         already mounted, a stale mount left by a killed server (ENOTCONN), no /dev/fuse, no permission
     * @throws IllegalCallerException if the JVM was started without {@code --enable-native-access} for
     *         ringfuse; the message names the flag
     */
    public static Mount mount(Path mountpoint, LowLevelFileSystem fs, MountOptions options) throws MountException {
        return Server.start(mountpoint, fs, options);
    }

    /** Mounts with {@link MountOptions#defaults()}. */
    public static Mount mount(Path mountpoint, LowLevelFileSystem fs) throws MountException {
        return mount(mountpoint, fs, MountOptions.defaults());
    }

    /**
     * Clears a stale mount at {@code mountpoint} left by a server that died (callers see ENOTCONN):
     * a lazy unmount. Returns true if something was unmounted.
     */
    public static boolean clearStale(Path mountpoint) throws MountException {
        return dev.ringfuse.mount.Mounter.clearStale(mountpoint);
    }

    /**
     * {@code options}, if every option in its {@link MountOptions#extra()} list is one the kernel or
     * fusermount3 takes (mount flags such as dev, suid, noexec, noatime, sync; max_read=, blksize=; nonempty,
     * auto_unmount; what fstab passes to a mount helper for mount(8) itself, such as defaults, noauto, user,
     * _netdev, x-*). Here rather than on {@link MountOptions}: the list lives with the mount methods, and
     * this class is the one place that joins the API package to them.
     *
     * @throws IllegalArgumentException naming the first unknown option
     */
    public static MountOptions checkOptions(MountOptions options) {
        var unknown = dev.ringfuse.mount.KernelOptions.unknown(options.extra());
        if (unknown.isPresent()) throw new IllegalArgumentException("unknown mount option \"" + unknown.get() + "\"");
        return options;
    }
}
