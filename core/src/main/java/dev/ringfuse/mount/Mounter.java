package dev.ringfuse.mount;

import dev.ringfuse.MountException;
import dev.ringfuse.MountMethod;
import dev.ringfuse.MountOptions;
import dev.ringfuse.sys.ErrnoException;
import dev.ringfuse.sys.Libc;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Mounts and unmounts. Every failure becomes a {@link MountException} whose message names the problem
 * and the fix.
 */
public final class Mounter {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");
    private static final int EPERM = 1, ENOENT = 2, EACCES = 13, EBUSY = 16, EINVAL = 22, ENODEV = 19, ENOTCONN = 107;

    private Mounter() {}

    /** The mount point, absolute and checked: exists, is a directory, is not a live or stale FUSE mount. */
    public static Path check(Path mountpoint) throws MountException {
        Path abs = mountpoint.toAbsolutePath().normalize();
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(abs, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new MountException("mount point " + abs + " does not exist; create it first (mkdir -p " + abs + ")", ENOENT);
        } catch (FileSystemException e) {
            if (String.valueOf(e.getReason()).contains("not connected")) {
                throw new MountException("mount point " + abs + " is a stale FUSE mount left by a server that died "
                        + "(ENOTCONN); clear it with `fusermount3 -u -z " + abs + "` (or `umount -l " + abs
                        + "` as root), or call Fuse.clearStale / use --clear-stale", ENOTCONN);
            }
            throw new MountException("cannot use mount point " + abs + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new MountException("cannot use mount point " + abs + ": " + e.getMessage(), e);
        }
        if (!attrs.isDirectory()) {
            throw new MountException("mount point " + abs + " is not a directory", 20);
        }
        var existing = MountInfo.at(abs);
        if (existing.isPresent() && existing.get().isFuse()) {
            throw new MountException("mount point " + abs + " is already mounted (" + existing.get().fsType()
                    + " from " + existing.get().source() + "); unmount it first with `fusermount3 -u " + abs + "`", EBUSY);
        }
        return abs;
    }

    /** The method AUTO resolves to: mount(2) as root, else fusermount3. */
    public static MountMethod resolve(MountMethod m) {
        if (m != MountMethod.AUTO) return m;
        return Libc.geteuid() == 0 ? MountMethod.DIRECT : MountMethod.FUSERMOUNT;
    }

    /** Opens /dev/fuse for a direct mount. */
    public static int openDevice() throws MountException {
        try {
            return Libc.open("/dev/fuse", Libc.O_RDWR | Libc.O_CLOEXEC, 0);
        } catch (ErrnoException e) {
            throw switch (e.errno()) {
                case ENOENT, ENODEV, 6 -> new MountException("no /dev/fuse: load the fuse module (`modprobe fuse`), "
                        + "or give the container the device (--device /dev/fuse)", e.errno());
                case EACCES, EPERM -> new MountException("no permission to open /dev/fuse (" + e.getMessage()
                        + "): run as root, or use the fusermount3 method (apt-get install fuse3), or make the device "
                        + "usable as distributions do (chmod 0666 /dev/fuse)", e.errno());
                default -> new MountException("cannot open /dev/fuse: " + e.getMessage(), e.errno());
            };
        }
    }

    /** mount(2) of {@code fd} at {@code mnt}. */
    public static void mountDirect(int fd, Path mnt, MountOptions o) throws MountException {
        long flags = Libc.MS_NOSUID | Libc.MS_NODEV;
        StringBuilder data = new StringBuilder("fd=" + fd + ",rootmode=40000,user_id=" + Libc.getuid()
                + ",group_id=" + Libc.getgid());
        if (o.defaultPermissions()) data.append(",default_permissions");
        if (o.allowOther()) data.append(",allow_other");
        if (o.readOnly()) flags |= Libc.MS_RDONLY;
        var unknown = KernelOptions.unknown(o.extra());
        if (unknown.isPresent()) throw new MountException("unknown mount option \"" + unknown.get() + "\"", EINVAL);
        flags = KernelOptions.flags(o.extra(), flags);
        for (String d : KernelOptions.data(o.extra())) data.append(',').append(d);
        String type = o.subtype().isEmpty() ? "fuse" : "fuse." + o.subtype();
        String source = o.fsName().isEmpty() ? "/dev/fuse" : o.fsName();
        try {
            Libc.mount(source, mnt.toString(), type, flags, data.toString());
        } catch (ErrnoException e) {
            throw switch (e.errno()) {
                case EPERM -> new MountException("mount(2) not permitted (" + e.getMessage() + "): run as root or use "
                        + "the fusermount3 method", e.errno());
                case EBUSY -> new MountException("mount point " + mnt + " is busy", e.errno());
                default -> new MountException("mount(2) of " + mnt + " failed: " + e.getMessage(), e.errno());
            };
        }
    }

    /** The fusermount3 handshake; returns the /dev/fuse descriptor. */
    public static int mountFusermount(Path mnt, MountOptions o) throws MountException {
        var unknown = KernelOptions.unknown(o.extra());
        if (unknown.isPresent()) throw new MountException("unknown mount option \"" + unknown.get() + "\"", EINVAL);
        boolean root = Libc.getuid() == 0;
        List<String> ignored = root ? List.of() : KernelOptions.privilegedOnly(o.extra());
        if (!ignored.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "mount options " + ignored + " ignored: only root may mount with "
                    + "dev or suid (fusermount3 ignores them too); the mount is nodev,nosuid");
        }
        List<String> opts = new ArrayList<>();
        opts.add(o.readOnly() ? "ro" : "rw");
        opts.add("nosuid");
        opts.add("nodev");
        if (o.defaultPermissions()) opts.add("default_permissions");
        if (o.allowOther()) opts.add("allow_other");
        if (!o.fsName().isEmpty()) opts.add("fsname=" + o.fsName());
        if (!o.subtype().isEmpty()) opts.add("subtype=" + o.subtype());
        opts.addAll(KernelOptions.forFusermount(o.extra(), root));
        return Fusermount.mount(mnt, String.join(",", opts));
    }

    /** Unmounts: umount2 as root (lazily if busy), else `fusermount3 -u -z`. Not mounted is not an error. */
    public static void unmount(Path mnt, MountMethod method) throws MountException {
        if (method == MountMethod.DIRECT || Libc.geteuid() == 0) {
            try {
                Libc.umount2(mnt.toString(), 0);
            } catch (ErrnoException e) {
                if (e.errno() == EINVAL || e.errno() == ENOENT) return;
                try {
                    Libc.umount2(mnt.toString(), Libc.MNT_DETACH);
                } catch (ErrnoException e2) {
                    if (e2.errno() != EINVAL && e2.errno() != ENOENT) {
                        throw new MountException("cannot unmount " + mnt + ": " + e2.getMessage(), e2.errno());
                    }
                }
            }
        } else {
            Fusermount.unmount(mnt);
        }
    }

    /** Lazily unmounts a stale FUSE mount at {@code mnt}; returns true if there was one. */
    public static boolean clearStale(Path mountpoint) throws MountException {
        Path abs = mountpoint.toAbsolutePath().normalize();
        var info = MountInfo.at(abs);
        if (info.isEmpty() || !info.get().isFuse()) return false;
        if (Libc.geteuid() == 0) {
            try {
                Libc.umount2(abs.toString(), Libc.MNT_DETACH);
            } catch (ErrnoException e) {
                throw new MountException("cannot clear " + abs + ": " + e.getMessage(), e.errno());
            }
        } else {
            Fusermount.unmount(abs);
        }
        return true;
    }

    /**
     * Aborts the connection with device minor {@code minor} through /sys/fs/fuse/connections (mounting the
     * fusectl filesystem there first if needed and permitted): every request fails, readers get ENODEV.
     */
    public static boolean abort(int minor) {
        Path dir = Path.of("/sys/fs/fuse/connections");
        Path abort = dir.resolve(Integer.toString(minor)).resolve("abort");
        if (!Files.exists(abort) && Libc.geteuid() == 0 && Files.isDirectory(dir)) {
            try {
                Libc.mount("fusectl", dir.toString(), "fusectl", 0, "");
            } catch (ErrnoException ignored) {
                // already mounted, or not permitted: try the write anyway
            }
        }
        try {
            Files.writeString(abort, "1");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits for a child process, with a bound. */
    static boolean waitFor(Process p, long seconds) throws InterruptedException {
        return p.waitFor(seconds, TimeUnit.SECONDS);
    }
}
