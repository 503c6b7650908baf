package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * send | receive between two pools on image files, checked on real mounts: after a full and an incremental
 * stream the received tree is identical to the sent one in contents, modes, owners, times, xattrs, hard
 * links, symlinks, device nodes and holes.
 */
@Timeout(300)
class ReplicationMountTest {
    @TempDir
    Path tmp;

    static Pool pool(Path img, String name) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(512L << 20);
        }
        return Pool.create(name, List.<BlockDevice>of(UringBlockDevice.open(img)));
    }

    static <T> T mounted(Pool pool, String ds, Path mp, Callable<T> work) throws Exception {
        return PoolFsMountTest.mounted(pool, ds, mp, work);
    }

    /** Path → every stat field that must survive (not st_dev), xattrs, contents or link target. */
    static TreeMap<String, String> describe(Path root) throws Exception {
        TreeMap<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                Map<String, Object> a = Files.readAttributes(p, "unix:*", LinkOption.NOFOLLOW_LINKS);
                StringBuilder d = new StringBuilder();
                for (String k : new String[] {"ino", "mode", "uid", "gid", "rdev", "size", "nlink", "lastModifiedTime", "lastAccessTime", "ctime"}) {
                    d.append(k).append('=').append(a.get(k)).append(' ');
                }
                if (Files.isSymbolicLink(p)) d.append("-> ").append(Files.readSymbolicLink(p));
                else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    d.append("sha=").append(java.util.HexFormat.of().formatHex(
                            java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))));
                    UserDefinedFileAttributeView x = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
                    for (String n : new java.util.TreeSet<>(x.list())) {
                        ByteBuffer v = ByteBuffer.allocate(x.size(n));
                        x.read(n, v);
                        d.append(" x:").append(n).append('=').append(new String(v.array(), StandardCharsets.UTF_8));
                    }
                }
                out.put(root.relativize(p).toString(), d.toString());
            }
        }
        return out;
    }

    static void populate(Path mp) throws Exception {
        byte[] blob = new byte[3 << 20];
        new Random(11).nextBytes(blob);
        Files.write(mp.resolve("blob"), blob);
        Files.createLink(mp.resolve("blob-link1"), mp.resolve("blob"));
        Files.createLink(mp.resolve("blob-link2"), mp.resolve("blob"));
        Files.createDirectories(mp.resolve("dir/sub"));
        Files.writeString(mp.resolve("dir/sub/secret"), "top secret\n");
        Files.setPosixFilePermissions(mp.resolve("dir/sub/secret"), PosixFilePermissions.fromString("rw-r-----"));
        Files.setAttribute(mp.resolve("dir/sub/secret"), "unix:uid", 1234);
        Files.setAttribute(mp.resolve("dir/sub/secret"), "unix:gid", 5678);
        Files.createSymbolicLink(mp.resolve("dir/link"), Path.of("sub/secret"));
        Files.writeString(mp.resolve("tagged"), "with xattrs\n");
        UserDefinedFileAttributeView x = Files.getFileAttributeView(mp.resolve("tagged"), UserDefinedFileAttributeView.class);
        x.write("color", StandardCharsets.UTF_8.encode("green"));
        x.write("size", StandardCharsets.UTF_8.encode("large"));
        try (FileChannel c = FileChannel.open(mp.resolve("sparse"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap("head".getBytes()), 0);
            c.write(ByteBuffer.wrap("tail".getBytes()), 1L << 30);
        }
        Files.setLastModifiedTime(mp.resolve("tagged"), FileTime.from(Instant.parse("2001-02-03T04:05:06.123456789Z")));
        Process mk = new ProcessBuilder("mkfifo", mp.resolve("fifo").toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
        Process dev = new ProcessBuilder("mknod", mp.resolve("null-dev").toString(), "c", "1", "3").inheritIO().start();
        assertEquals(0, dev.waitFor());
    }

    static void change(Path mp) throws Exception {
        try (FileChannel c = FileChannel.open(mp.resolve("blob"), StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(new byte[100_000]), 1 << 20);
        }
        Files.delete(mp.resolve("blob-link2"));
        Files.delete(mp.resolve("dir/link"));
        Files.writeString(mp.resolve("dir/new"), "added later\n");
        Files.getFileAttributeView(mp.resolve("tagged"), UserDefinedFileAttributeView.class).delete("size");
        Files.setAttribute(mp.resolve("tagged"), "unix:uid", 42);
        try (FileChannel c = FileChannel.open(mp.resolve("sparse"), StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap("middle".getBytes()), 1L << 29);
        }
    }

    @Test
    void receivedTreeIsIdentical() throws Exception {
        Pool a = pool(tmp.resolve("a.img"), "ra");
        Pool b = pool(tmp.resolve("b.img"), "rb");
        a.createDataset("ra/src", Map.of("compression", "lz4"));
        Path mp = MountedFsKit.newMountpoint("repl");
        Path stream = tmp.resolve("full.stream"), inc = tmp.resolve("inc.stream");

        TreeMap<String, String> first = mounted(a, "ra/src", mp, () -> {
            populate(mp);
            return describe(mp);
        });
        Snapshots.create(a, "ra/src@one");
        try (OutputStream out = Files.newOutputStream(stream)) {
            Sender.send(a, "ra/src@one", null, out, x -> { });
        }
        try (InputStream in = Files.newInputStream(stream)) {
            Receiver.receive(b, "rb/copy", in, false, x -> { }, x -> { });
        }
        assertEquals(first, mounted(b, "rb/copy", mp, () -> describe(mp)));

        TreeMap<String, String> second = mounted(a, "ra/src", mp, () -> {
            change(mp);
            return describe(mp);
        });
        Snapshots.create(a, "ra/src@two");
        try (OutputStream out = Files.newOutputStream(inc)) {
            Sender.send(a, "ra/src@two", "@one", out, x -> { });
        }
        System.out.printf("full stream %d bytes, incremental %d bytes%n", Files.size(stream), Files.size(inc));
        assertTrue(Files.size(inc) < Files.size(stream) / 4, "the incremental stream carries the changes only");
        try (InputStream in = Files.newInputStream(inc)) {
            Receiver.receive(b, "rb/copy", in, false, x -> { }, x -> { });
        }
        TreeMap<String, String> got = mounted(b, "rb/copy", mp, () -> {
            // the holes are holes on the receiving side too
            try (RandomAccessFile r = new RandomAccessFile(mp.resolve("sparse").toFile(), "r")) {
                byte[] mid = new byte[6];
                r.seek(1L << 29);
                r.readFully(mid);
                assertArrayEquals("middle".getBytes(), mid);
            }
            Process st = new ProcessBuilder("stat", "-c", "%b", mp.resolve("sparse").toString()).redirectErrorStream(true).start();
            String blocks = new String(st.getInputStream().readAllBytes()).trim();
            assertEquals(0, st.waitFor(), blocks);
            assertTrue(Long.parseLong(blocks) < 4096, "sparse file stays sparse: " + blocks + " blocks of 512 bytes");
            return describe(mp);
        });
        assertEquals(second, got);
        for (Pool p : new Pool[] {a, b}) {
            PoolVerifier.Report r = PoolVerifier.verify(p, null);
            assertTrue(r.clean(), r.errors().toString());
            p.export(false);
        }
    }
}
