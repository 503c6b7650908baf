package dev.ringfuse.testkit;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * O_DIRECT through the passthrough filesystem with the server moving the data (kernel passthrough off), over a
 * source that honours O_DIRECT: ext4 on a loop device. tmpfs ignores the alignment O_DIRECT asks for, so the
 * suites over /dev/shm never saw the EINVAL that ext4 answered to the server's read into its reply buffer (the
 * data follows the FUSE header there, 16 bytes into a page) and its write from the request buffer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PassthroughDirectIoTest {
    private static Path work;
    private static Path source;
    private static boolean mounted;

    @BeforeAll
    static void ext4Source() throws Exception {
        assumeTrue(Libc.geteuid() == 0, "needs root (mount -o loop)");
        assumeTrue(Procs.onPath("mkfs.ext4") && Procs.onPath("losetup"), "mkfs.ext4 and losetup");
        Path shm = Path.of("/dev/shm");
        work = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of("/tmp"), "ringfuse-dio");
        Path image = work.resolve("ext4.img");
        source = Files.createDirectory(work.resolve("source"));
        check(Procs.run(Duration.ofSeconds(60), List.of("truncate", "-s", "64M", image.toString())));
        check(Procs.run(Duration.ofSeconds(60), List.of("mkfs.ext4", "-q", "-F", "-b", "4096", image.toString())));
        check(Procs.run(Duration.ofSeconds(60), List.of("mount", "-o", "loop", image.toString(), source.toString())));
        mounted = true;
        assertEquals("ext4", Files.getFileStore(source).type());
    }

    @AfterAll
    static void removeSource() throws Exception {
        if (mounted && Procs.run(Duration.ofSeconds(60), List.of("umount", source.toString())).exit() != 0) {
            // the servers of this JVM may still hold descriptors of the source (closed at exit): detach it now,
            // the loop device is released with the last of them (mount -o loop sets autoclear)
            check(Procs.run(Duration.ofSeconds(60), List.of("umount", "-l", source.toString())));
        }
        if (work != null) PassthroughScenarios.deleteTree(work);
    }

    private static void check(Procs.Result r) {
        assertEquals(0, r.exit(), r.out() + r.err());
    }

    private static FuseMount mount(TransportKind transport) {
        FuseMount m = FuseMount.of(() -> new PassthroughFs(PassthroughFs.Options.of(source).withKernel(KernelMode.OFF)))
                .timeout(Duration.ofSeconds(90))
                .options(MountOptions.defaults().withTransport(transport).withInitTimeout(Duration.ofSeconds(90)));
        return m;
    }

    // per test (an instance field): mounted after the ext4 source, unmounted before it. One transport: the
    // bounce happens in the file system, below whichever transport delivered the request.
    @RegisterExtension
    final FuseMount dev = mount(TransportKind.DEV);

    private static ByteBuffer aligned(int size) {
        return ByteBuffer.allocateDirect(size + 4096).alignedSlice(4096).limit(size).slice();
    }

    /** Aligned O_DIRECT writes and reads of 4 KiB and 128 KiB, read back through the mount and from the source. */
    private static void roundTrip(Path dir, String name) throws Exception {
        Path file = dir.resolve(name);
        byte[] expected = new byte[256 << 10];
        for (int i = 0; i < expected.length; i++) expected[i] = (byte) (i * 31 + i / 4096);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            for (int off = 0, size = 4096; off < expected.length; off += size, size = size == 4096 ? 128 << 10 : 4096) {
                int n = Math.min(size, expected.length - off);
                ByteBuffer b = aligned(n).put(expected, off, n).flip();
                assertEquals(n, ch.write(b, off), "O_DIRECT write at " + off);
            }
            byte[] got = new byte[expected.length];
            for (int off = 0, size = 128 << 10; off < got.length; off += size, size = size == 4096 ? 128 << 10 : 4096) {
                int n = Math.min(size, got.length - off);
                ByteBuffer b = aligned(n);
                assertEquals(n, ch.read(b, off), "O_DIRECT read at " + off);
                b.flip().get(got, off, n);
            }
            assertArrayEquals(expected, got, "read back with O_DIRECT through the mount");
        }
        Path inSource = source.resolve(dir.getFileName()).resolve(name);
        assertArrayEquals(expected, Files.readAllBytes(inSource), "the ext4 source holds what was written");
        assertEquals(expected.length, Files.size(file));
        assertArrayEquals(Arrays.copyOf(expected, 4096), Arrays.copyOf(Files.readAllBytes(file), 4096));
    }

    @Test
    void alignedDirectIoWorksOverExt4ThroughDevFuse() throws Exception {
        roundTrip(dev.testDir(), "direct");
    }
}
