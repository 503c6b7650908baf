package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A mounted dataset keeps data, links, xattrs, holes and a file past 4 GiB across export and import. */
@Timeout(300)
class PoolFsMountTest {
    @TempDir
    Path tmp;

    static <T> T mounted(Pool pool, String ds, Path mp, java.util.concurrent.Callable<T> work) throws Exception {
        return mounted(pool, ds, mp, work, Duration.ofSeconds(200));
    }

    static <T> T mounted(Pool pool, String ds, Path mp, java.util.concurrent.Callable<T> work, Duration limit) throws Exception {
        return mounted(new PoolFs(pool.dataset(ds), false), mp, work, limit);
    }

    /** Runs {@code work} with {@code fs} mounted at {@code mp} (a filesystem built with other settings). */
    static <T> T mounted(PoolFs fs, Path mp, java.util.concurrent.Callable<T> work) throws Exception {
        return mounted(fs, mp, work, Duration.ofSeconds(200));
    }

    static <T> T mounted(PoolFs fs, Path mp, java.util.concurrent.Callable<T> work, Duration limit) throws Exception {
        return mounted(fs, mp, MountOptions.defaults(), work, limit);
    }

    /** Runs {@code work} with {@code fs} mounted at {@code mp} with {@code options}. */
    static <T> T mounted(PoolFs fs, Path mp, MountOptions options, java.util.concurrent.Callable<T> work, Duration limit) throws Exception {
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, options));
        try {
            return MountedFsKit.withTimeout(limit, mp, work);
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
        }
    }

    @Test
    void dataSurvivesUnmountExportAndImport() throws Exception {
        Path img = tmp.resolve("p.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(512L << 20);
        }
        byte[] blob = new byte[3 << 20];
        new Random(9).nextBytes(blob);
        Path mp = MountedFsKit.newMountpoint("poolfs");
        Pool pool = Pool.create("m", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("m/fs", Map.of("compression", "zstd", "recordsize", "64K"));
        long t0 = System.nanoTime();
        mounted(pool, "m/fs", mp, () -> {
            Files.write(mp.resolve("blob"), blob);
            Files.writeString(mp.resolve("text"), "hello pool\n".repeat(1000));
            Files.createLink(mp.resolve("hard"), mp.resolve("blob"));
            Files.createSymbolicLink(mp.resolve("sym"), Path.of("text"));
            Files.createDirectories(mp.resolve("d/e/f"));
            UserDefinedFileAttributeView x = Files.getFileAttributeView(mp.resolve("text"), UserDefinedFileAttributeView.class);
            x.write("color", StandardCharsets.UTF_8.encode("blue"));
            try (FileChannel c = FileChannel.open(mp.resolve("sparse"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                c.write(ByteBuffer.wrap("start".getBytes()), 0);
                c.write(ByteBuffer.wrap("end".getBytes()), 5L << 30);
                c.force(true);
            }
            for (int i = 0; i < 500; i++) Files.writeString(mp.resolve("d/f" + i), "n" + i);
            return null;
        });
        System.out.printf("first mount: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        pool.export(false);

        Pool again = Pool.open(List.<BlockDevice>of(UringBlockDevice.open(img)));
        mounted(again, "m/fs", mp, () -> {
            assertArrayEquals(blob, Files.readAllBytes(mp.resolve("blob")));
            assertEquals("hello pool\n".repeat(1000), Files.readString(mp.resolve("text")));
            assertEquals(2, (int) Files.getAttribute(mp.resolve("blob"), "unix:nlink"));
            assertEquals(Path.of("text"), Files.readSymbolicLink(mp.resolve("sym")));
            assertTrue(Files.isDirectory(mp.resolve("d/e/f")));
            UserDefinedFileAttributeView x = Files.getFileAttributeView(mp.resolve("text"), UserDefinedFileAttributeView.class);
            ByteBuffer v = ByteBuffer.allocate(16);
            x.read("color", v);
            assertEquals("blue", new String(v.array(), 0, v.position(), StandardCharsets.UTF_8));
            assertEquals((5L << 30) + 3, Files.size(mp.resolve("sparse")));
            try (RandomAccessFile r = new RandomAccessFile(mp.resolve("sparse").toFile(), "r")) {
                r.seek(5L << 30);
                byte[] end = new byte[3];
                r.readFully(end);
                assertEquals("end", new String(end));
            }
            long blocks = (long) Files.getAttribute(mp.resolve("sparse"), "unix:size") / 512;
            assertTrue(blocks > 1000, "sanity");
            assertEquals(500, Files.list(mp.resolve("d")).filter(p -> p.getFileName().toString().startsWith("f")).count());
            // SEEK_HOLE after the first page, SEEK_DATA finds the last block, SEEK_DATA finds the last block
            Process p = new ProcessBuilder("python3", "-c",
                    "import os,sys; fd=os.open(sys.argv[1],os.O_RDONLY); print(os.lseek(fd,0,os.SEEK_HOLE), os.lseek(fd,65536,os.SEEK_DATA))",
                    mp.resolve("sparse").toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            assertEquals(0, p.waitFor(), out);
            assertEquals("4096 " + (5L << 30), out);
            return null;
        });
        PoolVerifier.Report r = PoolVerifier.verify(again, null);
        assertTrue(r.clean(), r.errors().toString());
        again.export(false);
    }

    /** Past the largest file (2^50) a truncate is refused as a write is (EFBIG), as ext4 and xfs do past theirs. */
    @Test
    void noTruncateMakesAFileLargerThanAWriteCan() throws Exception {
        Path img = tmp.resolve("big.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Path mp = MountedFsKit.newMountpoint("poolfs-max");
        Pool pool = Pool.create("x", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("x/fs", Map.of("compression", "off"));
        long max = 1L << 50;
        mounted(pool, "x/fs", mp, () -> {
            try (RandomAccessFile f = new RandomAccessFile(mp.resolve("f").toFile(), "rw")) {
                f.write("head".getBytes());
                f.setLength(max);
                assertEquals(max, f.length(), "a truncate to the largest size");
                java.io.IOException tooBig = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                        () -> f.setLength(max + 1));
                assertTrue(tooBig.getMessage().contains("File too large"), tooBig.getMessage());
                assertEquals(max, f.length(), "unchanged");
                f.seek(max - 1);
                f.write('z');
                java.io.IOException past = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> f.write('!'));
                assertTrue(past.getMessage().contains("File too large"), past.getMessage());
                f.seek(0);
                byte[] head = new byte[4];
                f.readFully(head);
                assertEquals("head", new String(head));
            }
            return null;
        });
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        assertTrue(r.clean(), r.errors().toString());
        pool.export(false);
    }
}
