package dev.ringfuse.testkit;

import dev.ringfuse.testkit.internal.ErrnoException;
import dev.ringfuse.testkit.internal.Libc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tools for tests of mounted filesystems, usable without JUnit: fresh mount points, what the kernel has
 * mounted where, and a forceful way out of a hung FUSE mount (abort the connection, then detach).
 *
 * <pre>{@code
 * Path mnt = MountedFsKit.newMountpoint("myfs");
 * Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(20), mnt, () -> Fuse.mount(mnt, new MyFs(), opts));
 * try {
 *     ... exercise mnt ...
 * } finally {
 *     MountedFsKit.closeOrForce(m, mnt, Duration.ofSeconds(20)); // never hangs
 * }
 * }</pre>
 */
public final class MountedFsKit {
    private MountedFsKit() {}

    /** Every mount point made by {@link #newMountpoint} lies under this directory. */
    public static final Path BASE = Path.of(System.getProperty("java.io.tmpdir"), "ringfuse-testkit");
    private static final AtomicInteger SEQ = new AtomicInteger();

    /**
     * One line of /proc/self/mountinfo.
     *
     * @param mountpoint where it is mounted (octal escapes such as \040 decoded)
     * @param fsType     the type, e.g. "fuse.ringfuse" or "tmpfs"
     * @param source     the source column (a FUSE mount's fsname)
     * @param major      the device's major number
     * @param minor      the device's minor number (a FUSE connection's number under /sys/fs/fuse/connections)
     * @param options    the per-mount options (rw or ro, nosuid, nodev, relatime, ...), comma separated
     */
    public record MountInfo(Path mountpoint, String fsType, String source, int major, int minor, String options) {
        /** True for fuse, fuse.* and fuseblk mounts. */
        public boolean isFuse() { return fsType.equals("fuse") || fsType.startsWith("fuse.") || fsType.equals("fuseblk"); }
    }

    /** A fresh empty directory (mode 0755, so other users may enter what gets mounted there) under {@link #BASE}. */
    public static Path newMountpoint(String label) throws IOException {
        Files.createDirectories(BASE);
        Files.setPosixFilePermissions(BASE, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path p = BASE.resolve(label.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + ProcessHandle.current().pid()
                + "-" + SEQ.incrementAndGet());
        Files.createDirectory(p);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    /** The mounts of this process's namespace, from /proc/self/mountinfo (read without touching any mount). */
    public static List<MountInfo> mounts() {
        try {
            List<MountInfo> out = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                int dash = java.util.Arrays.asList(f).indexOf("-");
                String[] dev = f[2].split(":");
                out.add(new MountInfo(Path.of(unescape(f[4])), f[dash + 1], unescape(f[dash + 2]),
                        Integer.parseInt(dev[0]), Integer.parseInt(dev[1]), f[5]));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\\' && i + 3 < s.length()) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(s.charAt(i));
            }
        }
        return b.toString();
    }

    /** The topmost mount at exactly {@code mountpoint}, if any. */
    public static Optional<MountInfo> mountAt(Path mountpoint) {
        Path abs = mountpoint.toAbsolutePath().normalize();
        MountInfo last = null;
        for (MountInfo m : mounts()) if (m.mountpoint().equals(abs)) last = m;
        return Optional.ofNullable(last);
    }

    /** FUSE mounts at or below {@code dir}: after a suite this should be empty. */
    public static List<MountInfo> fuseMountsUnder(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        return mounts().stream().filter(MountInfo::isFuse).filter(m -> m.mountpoint().startsWith(abs)).toList();
    }

    /**
     * Aborts the FUSE connection behind {@code mountpoint} through the fusectl filesystem (mounted on demand):
     * every waiting and future request fails with ENOTCONN at once. Returns false if no FUSE mount is there.
     */
    public static boolean abortFuseConnection(Path mountpoint) {
        Optional<MountInfo> m = mountAt(mountpoint).filter(MountInfo::isFuse);
        if (m.isEmpty()) return false;
        Path conns = Path.of("/sys/fs/fuse/connections");
        try {
            if (mounts().stream().noneMatch(x -> x.mountpoint().equals(conns))) {
                new ProcessBuilder("mount", "-t", "fusectl", "fusectl", conns.toString()).start().waitFor(10, TimeUnit.SECONDS);
            }
            Path abort = conns.resolve(Integer.toString(m.get().minor())).resolve("abort");
            if (!Files.exists(abort)) return false;
            Files.writeString(abort, "1");
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Detaches whatever is mounted at {@code mountpoint} (umount -l); false if nothing was mounted. */
    public static boolean lazyUnmount(Path mountpoint) {
        if (mountAt(mountpoint).isEmpty()) return false;
        try {
            Libc.umount(mountpoint.toAbsolutePath().toString(), true);
            return true;
        } catch (ErrnoException e) {
            return false;
        }
    }

    /** Aborts the FUSE connection (if any) and detaches the mount: the way out of a hung filesystem. */
    public static void forceUnmount(Path mountpoint) {
        abortFuseConnection(mountpoint);
        while (lazyUnmount(mountpoint)) {
            // several mounts may be stacked at one point
        }
    }

    /**
     * Runs {@code work} on another thread; if it has not finished after {@code timeout}, force-unmounts
     * {@code mountpoint} (which makes the stuck calls fail) and throws an {@link AssertionError}.
     */
    public static <T> T withTimeout(Duration timeout, Path mountpoint, Callable<T> work) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().name("testkit-" + mountpoint.getFileName()).start(() -> {
            try {
                f.complete(work.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // taken before the force-unmount frees the stuck calls: the dump shows who waits on what (a hang
            // under load may not come back when rerun); it goes into the failure, which the test report keeps
            String dump = threadDump();
            forceUnmount(mountpoint);
            t.interrupt();
            throw new AssertionError("did not finish within " + timeout + "; " + mountpoint + " was force-unmounted;"
                    + " threads when it timed out:\n" + dump);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            if (e.getCause() instanceof Error er) throw er;
            throw e;
        }
    }

    /**
     * Every thread of this process with its full stack, the lock it waits for and its owner, and the locks it
     * holds (monitors and java.util.concurrent locks): what a hung mount served in-process needs to be read.
     */
    public static String threadDump() {
        StringBuilder sb = new StringBuilder();
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        for (java.lang.management.ThreadInfo ti : mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported())) {
            sb.append('"').append(ti.getThreadName()).append("\" #").append(ti.getThreadId()).append(' ').append(ti.getThreadState());
            if (ti.getLockName() != null) sb.append(" on ").append(ti.getLockName());
            if (ti.getLockOwnerName() != null) sb.append(" owned by \"").append(ti.getLockOwnerName()).append("\" #").append(ti.getLockOwnerId());
            sb.append('\n');
            StackTraceElement[] st = ti.getStackTrace();
            for (int i = 0; i < st.length; i++) {
                sb.append("\tat ").append(st[i]).append('\n');
                for (java.lang.management.MonitorInfo m : ti.getLockedMonitors()) {
                    if (m.getLockedStackDepth() == i) sb.append("\t- locked ").append(m).append('\n');
                }
            }
            for (java.lang.management.LockInfo l : ti.getLockedSynchronizers()) sb.append("\t- holds ").append(l).append('\n');
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * Closes {@code mount} (a ringfuse {@code Mount} or anything else that unmounts on close); if close
     * hangs longer than {@code timeout}, or leaves something mounted, force-unmounts. Returns true when the
     * plain close was enough.
     */
    public static boolean closeOrForce(AutoCloseable mount, Path mountpoint, Duration timeout) {
        boolean clean;
        try {
            withTimeout(timeout, mountpoint, () -> {
                mount.close();
                return null;
            });
            clean = true;
        } catch (Throwable e) {
            clean = false;
        }
        if (mountAt(mountpoint).isPresent()) {
            forceUnmount(mountpoint);
            clean = false;
        }
        return clean;
    }
}
