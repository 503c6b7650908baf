package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.testkit.internal.Procs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The block stack a volume test builds: a loop device on {@code <fuse mount>/volume} and an ext4 on it.
 * {@link #close} takes it down in the only order that works even after the server was killed: detach the
 * loop device (it is released once its last user goes), lazily unmount the ext4 (its final writes fail
 * fast against the dead connection), clear the FUSE mount, then wait until the kernel has really let go
 * of the loop device, so that a later ext4 on the same image cannot meet a half-dead twin.
 */
final class BlockStack implements AutoCloseable {
    private static final Duration LONG = Duration.ofSeconds(90);
    final Path fuseMount;
    final Path ext4;
    private final List<String> loops = new ArrayList<>();

    BlockStack(Path fuseMount, Path ext4) {
        this.fuseMount = fuseMount;
        this.ext4 = ext4;
    }

    /** Runs a command and fails with its output unless it exits 0; returns stdout. */
    static String run(String... cmd) throws IOException, InterruptedException {
        Procs.Result r = Procs.run(LONG, List.of(cmd));
        if (r.exit() != 0) {
            String mounts = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                    .filter(l -> l.contains("ext4") || l.contains("fuse")).reduce("", (a, b) -> a + "\n  " + b);
            assertEquals(0, r.exit(), String.join(" ", cmd) + ": " + r.out() + r.err() + "\nmounts:" + mounts);
        }
        return r.out().trim();
    }

    /** losetup --direct-io=on on the volume; returns the device and checks that direct I/O really is on. */
    String attach() throws IOException, InterruptedException {
        String dev = run("losetup", "--find", "--show", "--direct-io=on", fuseMount.resolve("volume").toString());
        loops.add(dev);
        assertEquals("1", run("losetup", "--list", "--noheadings", "--output", "DIO", dev), "direct I/O on " + dev);
        return dev;
    }

    void mkfs(String dev) throws IOException, InterruptedException {
        run("mkfs.ext4", "-q", "-F", "-E", "nodiscard", dev);
    }

    void mountExt4(String dev) throws IOException, InterruptedException {
        Files.createDirectories(ext4);
        run("mount", "-t", "ext4", dev, ext4.toString());
    }

    /** A clean unmount of the ext4 and detach of the loop device (the server is alive). */
    void unmountClean(String dev) throws IOException, InterruptedException {
        run("umount", ext4.toString());
        detach(dev);
    }

    /** Detaches {@code dev} and waits until the kernel has released it. */
    void detach(String dev) throws IOException, InterruptedException {
        run("losetup", "-d", dev);
        loops.remove(dev);
        awaitGone(dev);
    }

    /** fsck.ext4 -fn on {@code dev}: no repairs, exit 0 means clean. */
    void fsckClean(String dev) throws IOException, InterruptedException {
        run("fsck.ext4", "-fn", dev);
    }

    private static void awaitGone(String dev) throws IOException, InterruptedException {
        long end = System.nanoTime() + LONG.toNanos();
        while (System.nanoTime() < end) {
            Procs.Result r = Procs.run(LONG, List.of("losetup", "--list", "--noheadings", "--output", "NAME"));
            if (!r.out().lines().map(String::trim).toList().contains(dev)) return;
            Thread.sleep(100);
        }
        throw new AssertionError(dev + " still attached after " + LONG);
    }

    /** Tears everything down; safe after failures and after the server died. */
    @Override
    public void close() throws Exception {
        for (String dev : loops) Procs.run(LONG, List.of("losetup", "-d", dev));
        if (MountedFsKit.mountAt(ext4).isPresent()) Procs.run(LONG, List.of("umount", "-l", ext4.toString()));
        Fuse.clearStale(fuseMount);
        MountedFsKit.forceUnmount(fuseMount);
        for (String dev : loops) awaitGone(dev);
        loops.clear();
    }
}
