package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** MemFs on a real mount, driven through java.nio: the kernel, the core and memfs together. */
class MountedSmokeTest {
    @TempDir
    Path tmp;

    private static void assumeFuse() {
        Path dev = Path.of("/dev/fuse");
        assumeTrue(Files.isReadable(dev) && Files.isWritable(dev), "needs a usable /dev/fuse");
    }

    @Test
    @Timeout(60)
    void everydayOperations() throws Exception {
        assumeFuse();
        try (Mount m = Fuse.mount(tmp, new MemFs(), MountOptions.defaults())) {
            Path root = m.mountpoint();
            Path a = root.resolve("a.txt");
            Files.writeString(a, "hello");
            Files.writeString(a, " world", StandardOpenOption.APPEND);
            assertEquals("hello world", Files.readString(a));

            Path d = Files.createDirectory(root.resolve("dir"));
            Path b = Files.move(a, d.resolve("b.txt"));
            assertFalse(Files.exists(a));
            assertEquals("hello world", Files.readString(b));
            assertEquals(3, Files.getAttribute(root, "unix:nlink"));
            assertThrows(FileAlreadyExistsException.class, () -> Files.createDirectory(d));
            assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(d));

            Path link = Files.createSymbolicLink(root.resolve("sym"), Path.of("dir/b.txt"));
            assertEquals(Path.of("dir/b.txt"), Files.readSymbolicLink(link));
            assertEquals("hello world", Files.readString(link));
            Path hard = Files.createLink(root.resolve("hard"), b);
            assertEquals(2, Files.getAttribute(b, "unix:nlink"));
            assertEquals(Files.getAttribute(b, "unix:ino"), Files.getAttribute(hard, "unix:ino"));

            Files.setPosixFilePermissions(b, PosixFilePermissions.fromString("rw-------"));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(hard)));

            UserDefinedFileAttributeView xattrs = Files.getFileAttributeView(b, UserDefinedFileAttributeView.class);
            xattrs.write("color", StandardCharsets.UTF_8.encode("blue"));
            ByteBuffer v = ByteBuffer.allocate(16);
            xattrs.read("color", v);
            assertEquals("blue", new String(v.array(), 0, v.position(), StandardCharsets.UTF_8));
            assertEquals(List.of("color"), xattrs.list());

            try (FileChannel ch = FileChannel.open(b, StandardOpenOption.WRITE)) {
                ch.truncate(5);
            }
            assertEquals("hello", Files.readString(hard));

            Files.delete(hard);
            Files.delete(link);
            Files.move(b, root.resolve("c.txt"), StandardCopyOption.ATOMIC_MOVE);
            Files.delete(d);
            try (Stream<Path> s = Files.list(root)) {
                assertEquals(List.of("c.txt"), s.map(p -> p.getFileName().toString()).toList());
            }
        }
    }

    @Test
    @Timeout(60)
    void sparseFileOfFiveGib() throws Exception {
        assumeFuse();
        MemFs fs = new MemFs();
        try (Mount m = Fuse.mount(tmp, fs, MountOptions.defaults())) {
            Path f = m.mountpoint().resolve("sparse");
            long end = 5L << 30;
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {42}), end - 1);
                ch.write(ByteBuffer.wrap("start".getBytes(StandardCharsets.UTF_8)), 0);
                ByteBuffer buf = ByteBuffer.allocate(8);
                ch.read(buf, end - 4);
                assertArrayEquals(new byte[] {0, 0, 0, 42}, java.util.Arrays.copyOf(buf.array(), 4));
                buf.clear();
                ch.read(buf, 3L << 30);
                assertArrayEquals(new byte[8], buf.array());
            }
            assertEquals(end, Files.size(f));
            assertTrue(fs.usedBytes() <= 2 * 64 * 1024, "a sparse file holds almost nothing: " + fs.usedBytes());
            Files.delete(f);
        }
    }
}
