package dev.ringfuse.testkit;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The scratch space of a volume test: a work directory (on tmpfs when there is one: the tests are about the
 * FUSE path, not the disk) holding the image, and a FUSE mount point. Closing force-unmounts and deletes.
 */
final class VolumeScratch implements AutoCloseable {
    final Path work;
    final Path image;
    final Path mountpoint;

    private VolumeScratch(Path work, Path mountpoint) {
        this.work = work;
        this.image = work.resolve("disk.img");
        this.mountpoint = mountpoint;
    }

    /** Skips the test unless it runs as root with {@code tools} on the PATH; then makes the scratch space. */
    static VolumeScratch forRoot(String label, String... tools) throws IOException {
        assumeTrue(Libc.geteuid() == 0, "needs root (mount, losetup)");
        for (String tool : tools) assumeTrue(Procs.onPath(tool), tool);
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return new VolumeScratch(Files.createTempDirectory(parent, label), MountedFsKit.newMountpoint(label));
    }

    @Override
    public void close() throws IOException {
        MountedFsKit.forceUnmount(mountpoint);
        try (Stream<Path> s = Files.walk(work)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
