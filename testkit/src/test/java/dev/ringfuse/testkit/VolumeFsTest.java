package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.fs.volume.VolumeFs;
import dev.ringfuse.fs.volume.VolumeOptions;
import dev.ringfuse.testkit.internal.Procs;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The volume file's contract on a real mount, with passthrough (auto) and served (off): the directory holds
 * exactly {@code volume}; O_DIRECT writes land in the image at their offset; discard punches the image;
 * size changes and writes past the end are refused unless the volume is resizable.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VolumeFsTest {
    private static final long SIZE = 8L << 20;
    @RegisterExtension
    final VolumeScratch scratch = new VolumeScratch("volume-fs", "dd", "fallocate", "truncate");

    private static Procs.Result sh(String... cmd) throws Exception {
        return Procs.run(Duration.ofSeconds(60), List.of(cmd));
    }

    @ParameterizedTest(name = "passthrough {0}")
    @ValueSource(strings = {"auto", "off"})
    void directWritesDiscardAndTheFixedSize(String passthrough) throws Exception {
        VolumeOptions o = VolumeOptions.of(scratch.image).withCreate(SIZE).withPassthrough(VolumeOptions.Passthrough.parse(passthrough));
        VolumeFs fs = VolumeFs.open(o);
        Mount m = Fuse.mount(scratch.mountpoint, fs, MountOptions.defaults());
        try {
            Path vol = scratch.mountpoint.resolve("volume");
            try (Stream<Path> s = Files.list(scratch.mountpoint)) {
                assertEquals(List.of(vol), s.toList());
            }
            assertEquals(SIZE, Files.size(vol));
            assertEquals(SIZE, Files.size(scratch.image));

            // 64 KiB of 0xAB written with O_DIRECT at 1 MiB, read back through the mount and from the image
            Path src = scratch.work.resolve("src");
            byte[] pattern = new byte[64 << 10];
            Arrays.fill(pattern, (byte) 0xAB);
            Files.write(src, pattern);
            Procs.Result dd = sh("dd", "if=" + src, "of=" + vol, "bs=64k", "seek=16", "oflag=direct", "conv=notrunc,fsync");
            assertEquals(0, dd.exit(), dd.err());
            assertArrayEquals(pattern, slice(vol, 1L << 20, pattern.length));
            assertArrayEquals(pattern, slice(scratch.image, 1L << 20, pattern.length));

            // discard: PUNCH_HOLE|KEEP_SIZE reaches the image, the size stays
            Procs.Result punch = sh("fallocate", "--punch-hole", "--offset", String.valueOf(1L << 20), "--length", "4096", vol.toString());
            assertEquals(0, punch.exit(), punch.err());
            assertArrayEquals(new byte[4096], slice(scratch.image, 1L << 20, 4096));
            assertEquals(SIZE, Files.size(scratch.image));

            // a fixed-size volume: truncate is refused, writing at the end is "disk full"
            Procs.Result trunc = sh("truncate", "-s", "1M", vol.toString());
            assertNotEquals(0, trunc.exit());
            assertTrue(trunc.err().contains("Operation not permitted"), trunc.err());
            Procs.Result past = sh("dd", "if=" + src, "of=" + vol, "bs=64k", "seek=" + (SIZE >> 16), "oflag=direct", "conv=notrunc");
            if (fs.passthroughActive()) {
                // the kernel writes the image itself: the server cannot refuse, but the size must follow it
                assertEquals(0, past.exit(), past.err());
                assertEquals(Files.size(scratch.image), Files.size(vol));
            } else {
                assertNotEquals(0, past.exit());
                assertTrue(past.err().contains("No space left"), past.err());
                assertEquals(SIZE, Files.size(scratch.image));
            }
        } finally {
            assertTrue(MountedFsKit.closeOrForce(m, scratch.mountpoint, Duration.ofSeconds(30)), "clean unmount");
        }
    }

    @ParameterizedTest(name = "passthrough {0}")
    @ValueSource(strings = {"auto", "off"})
    void aResizableVolumeFollowsTruncateAndAppends(String passthrough) throws Exception {
        VolumeOptions o = VolumeOptions.of(scratch.image).withCreate(SIZE).withResizable(true)
                .withPassthrough(VolumeOptions.Passthrough.parse(passthrough));
        Mount m = Fuse.mount(scratch.mountpoint, VolumeFs.open(o), MountOptions.defaults());
        try {
            Path vol = scratch.mountpoint.resolve("volume");
            assertEquals(0, sh("truncate", "-s", "16M", vol.toString()).exit());
            assertEquals(16L << 20, Files.size(vol));
            assertEquals(16L << 20, Files.size(scratch.image));
            Files.write(vol, new byte[]{1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
            assertEquals((16L << 20) + 3, Files.size(vol));
            assertArrayEquals(new byte[]{1, 2, 3}, slice(scratch.image, 16L << 20, 3));
        } finally {
            assertTrue(MountedFsKit.closeOrForce(m, scratch.mountpoint, Duration.ofSeconds(30)), "clean unmount");
        }
    }

    private static byte[] slice(Path p, long offset, int len) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(p)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(len);
            while (b.hasRemaining() && ch.read(b, offset + b.position()) > 0) {
                // read until full
            }
            return b.array();
        }
    }
}
