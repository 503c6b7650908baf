package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.volume.VolumeFs;
import dev.ringfuse.fs.volume.VolumeOptions;
import dev.ringfuse.testkit.internal.Procs;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The volume filesystem as a disk: {@code losetup --direct-io=on} on {@code /volume}, ext4 on the loop
 * device, a tree of files verified by checksum across a clean remount and across kill -9 of the server.
 * Runs with kernel passthrough (auto) and with the served io_uring paths (off). Root only.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VolumeLoopTest {
    private static final long IMAGE_SIZE = 96L << 20;
    @RegisterExtension
    final VolumeScratch scratch = new VolumeScratch("volume", "losetup", "mkfs.ext4", "fsck.ext4");

    private VolumeOptions options(String passthrough) {
        return VolumeOptions.of(scratch.image).withPassthrough(VolumeOptions.Passthrough.parse(passthrough));
    }

    @ParameterizedTest(name = "passthrough {0}, transport {1}, io {2}")
    @CsvSource({"auto,AUTO,INLINE", "off,AUTO,INLINE", "off,DEV,INLINE", "off,AUTO,ASYNC"})
    void ext4OnTheLoopDeviceKeepsEveryFileAcrossARemount(String passthrough, TransportKind transport, VolumeOptions.Io io)
            throws Exception {
        MountOptions mo = MountOptions.defaults().withTransport(transport);
        Map<String, String> written;
        try (BlockStack stack = new BlockStack(scratch.mountpoint, scratch.work.resolve("ext4"))) {
            try (Mount m = Fuse.mount(scratch.mountpoint, VolumeFs.open(options(passthrough).withIo(io).withCreate(IMAGE_SIZE)), mo)) {
                String dev = stack.attach();
                stack.mkfs(dev);
                stack.mountExt4(dev);
                written = writeTree(stack.ext4, "tree", 40, 1, true);
                assertEquals(written, checksums(stack.ext4.resolve("tree")));
                stack.unmountClean(dev);
            }
            try (Mount m = Fuse.mount(scratch.mountpoint, VolumeFs.open(options(passthrough).withIo(io)), mo)) {
                String dev = stack.attach();
                stack.fsckClean(dev);
                stack.mountExt4(dev);
                assertEquals(written, checksums(stack.ext4.resolve("tree")), "after remount");
                stack.unmountClean(dev);
            }
        }
        assertEquals(IMAGE_SIZE, Files.size(scratch.image), "the image keeps its size");
    }

    @ParameterizedTest(name = "passthrough {0}")
    @ValueSource(strings = {"auto", "off"})
    void nothingFsyncedIsLostWhenTheServerIsKilled(String passthrough) throws Exception {
        Files.createFile(scratch.image);
        try (var ch = FileChannel.open(scratch.image, StandardOpenOption.WRITE)) {
            ch.truncate(0).write(ByteBuffer.allocate(1), IMAGE_SIZE - 1);   // sparse image of IMAGE_SIZE
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> serverCmd = List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                VolumeServerMain.class.getName(), scratch.image.toString(), scratch.mountpoint.toString(), passthrough);
        Map<String, String> durable;
        try (BlockStack stack = new BlockStack(scratch.mountpoint, scratch.work.resolve("ext4"))) {
            try (Procs.Child server = Procs.start(serverCmd)) {
                server.awaitOutput("READY", Duration.ofSeconds(60));
                String dev = stack.attach();
                stack.mkfs(dev);
                stack.mountExt4(dev);
                durable = writeTree(stack.ext4, "durable", 30, 2, true);
                writeTree(stack.ext4, "volatile", 30, 3, false);      // may or may not survive
                server.process().destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
            stack.close();                                            // loop -d, umount -l, clear the stale mount
            try (Mount m = Fuse.mount(scratch.mountpoint, VolumeFs.open(options(passthrough)), MountOptions.defaults())) {
                String dev = stack.attach();
                stack.mountExt4(dev);                                 // replays the journal
                assertEquals(durable, checksums(stack.ext4.resolve("durable")), "fsynced files after kill -9");
                stack.unmountClean(dev);
                dev = stack.attach();
                stack.fsckClean(dev);
                stack.detach(dev);
            }
        }
    }

    /**
     * Writes {@code files} files of 1 B to 400 KiB in four directories; with {@code fsync} every file and
     * directory is fsynced (the durability promise under test). Returns relative path → SHA-256.
     */
    private static Map<String, String> writeTree(Path root, String name, int files, long seed, boolean fsync) throws Exception {
        Random rnd = new Random(seed);
        Path top = root.resolve(name);
        Files.createDirectories(top);
        for (int i = 0; i < files; i++) {
            Path dir = top.resolve("d" + (i % 4));
            Files.createDirectories(dir);
            byte[] data = new byte[1 + rnd.nextInt(400 << 10)];
            rnd.nextBytes(data);
            try (FileChannel ch = FileChannel.open(dir.resolve("f" + i), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(data));
                if (fsync) ch.force(true);
            }
        }
        if (fsync) {
            for (int d = 0; d < 4; d++) fsyncDir(top.resolve("d" + d));
            fsyncDir(top);
            fsyncDir(root);
        }
        return checksums(top);
    }

    private static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private static Map<String, String> checksums(Path top) throws Exception {
        Map<String, String> sums = new TreeMap<>();
        try (var s = Files.walk(top)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                MessageDigest md = MessageDigest.getInstance("SHA-256");
                sums.put(top.relativize(p).toString(), HexFormat.of().formatHex(md.digest(Files.readAllBytes(p))));
            }
        }
        return sums;
    }
}
