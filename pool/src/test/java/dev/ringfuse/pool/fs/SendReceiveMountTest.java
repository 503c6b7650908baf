package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.admin.PoolAdmin;
import dev.ringfuse.pool.admin.PoolControl;
import dev.ringfuse.pool.admin.PoolRegistry;
import dev.ringfuse.pool.admin.ReplicationAdmin;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * send and receive of mounted pools through their control sockets, as `ringfuse send | ringfuse receive` does:
 * a snapshot of a dataset being written to is sent (the mount goes on serving, and snapshot commands are
 * answered while another send stalls on a reader that does not read), received into another mounted pool
 * as a new dataset, and the received dataset, mounted, shows the same tree as the snapshot's view: contents,
 * modes, owners, times, xattrs, hard links, holes; an incremental stream received into it while mounted shows
 * the next snapshot's tree, with no stale page, size or name.
 */
@Timeout(600)
class SendReceiveMountTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();

    private Pool pool(PoolRegistry registry, String name) throws IOException {
        Path img = tmp.resolve(name + ".img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(512L << 20);
        }
        registry.put(name, List.of(img));
        return Pool.create(name, List.<BlockDevice>of(UringBlockDevice.open(img)));
    }

    private static Mount mount(Path mp, dev.ringfuse.lowlevel.LowLevelFileSystem fs) throws Exception {
        return MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
    }

    private String run(PoolAdmin admin, String... args) throws IOException {
        outBytes.reset();
        assertEquals(0, admin.snapshotCommand(List.of(args)), String.join(" ", args));
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void mountedPoolsSendAndReceiveThroughTheirControlSockets() throws Exception {
        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        PoolAdmin admin = new PoolAdmin(registry, new PrintStream(outBytes, true, StandardCharsets.UTF_8), System.err);
        ReplicationAdmin repl = new ReplicationAdmin(registry, System.err);
        Pool a = pool(registry, "sa"), b = pool(registry, "sb");
        a.createDataset("sa/src", Map.of("compression", "lz4"));
        b.createDataset("sb/busy", Map.of());
        Path mpA = MountedFsKit.newMountpoint("sendsrc"), mpB = MountedFsKit.newMountpoint("recvbusy");
        Path mpC = MountedFsKit.newMountpoint("recvcopy");
        PoolControl ca = PoolControl.start(registry, a), cb = PoolControl.start(registry, b);
        Mount ma = mount(mpA, new SnapshotDirFs(new PoolFs(a.dataset("sa/src"), false), null));
        Mount mb = mount(mpB, new SnapshotDirFs(new PoolFs(b.dataset("sb/busy"), false), null));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(500), mpA, () -> {
                scenario(a, b, admin, repl, registry, mpA, mpB, mpC);
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(ma, mpA, Duration.ofSeconds(20));
            MountedFsKit.closeOrForce(mb, mpB, Duration.ofSeconds(20));
            ca.close();
            cb.close();
        }
        for (Pool p : List.of(a, b)) {
            PoolVerifier.Report r = PoolVerifier.verify(p, null);
            assertTrue(r.clean(), p.name() + ": " + r.errors());
            p.close();
        }
    }

    private void scenario(Pool a, Pool b, PoolAdmin admin, ReplicationAdmin repl, PoolRegistry registry, Path mpA, Path mpB,
                          Path mpC) throws Exception {
        populate(mpA);
        // a writer appends to the source all along (the snapshot is a txg boundary; the send reads the snapshot)
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong records = new AtomicLong();
        Files.createDirectories(mpA.resolve("busy"));
        ByteArrayOutputStream inc = new ByteArrayOutputStream();
        Thread writer = Thread.ofPlatform().start(() -> {
            try (FileChannel c = FileChannel.open(mpA.resolve("busy/log"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND)) {
                byte[] rec = new byte[16 << 10];
                while (!stop.get()) {
                    java.util.Arrays.fill(rec, (byte) records.get());
                    c.write(ByteBuffer.wrap(rec));
                    records.incrementAndGet();
                    Thread.sleep(5);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try {
            while (records.get() < 10) Thread.sleep(5);
            run(admin, "snapshot", "sa/src@one");
            Files.writeString(mpA.resolve("small"), "changed after one\n"); // in @two: an incremental stream rewrites it

            // a send whose reader does not read: it blocks on the socket, and nothing else does
            SocketChannel stalled = SocketChannel.open(UnixDomainSocketAddress.of(tmp.resolve("pools.d/sa.sock")));
            stalled.write(ByteBuffer.wrap("send\tsa/src@one\n".getBytes(StandardCharsets.UTF_8)));
            ByteBuffer head = ByteBuffer.allocate(14); // the size frame and the first data frame's type: the send runs
            while (head.hasRemaining()) assertTrue(stalled.read(head) >= 0, "the stalled send ended early");
            assertEquals('S', head.get(0));
            assertEquals('D', head.get(13));
            Thread.sleep(500); // and fills the socket's buffers
            long before = records.get();
            long t0 = System.nanoTime();
            String listed = CompletableFuture.supplyAsync(() -> {
                try {
                    return run(admin, "list", "sa/src") + run(admin, "snapshot", "sa/src@two");
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }).get(60, TimeUnit.SECONDS);
            System.out.printf("list and snapshot during a stalled send: %.1f ms%n%s", (System.nanoTime() - t0) / 1e6, listed);
            assertTrue(listed.contains("sa/src@one") && listed.contains("taken at txg"), listed);
            Exception held = assertThrows(IOException.class, () -> admin.snapshotCommand(List.of("destroy", "sa/src@one")));
            assertTrue(held.getMessage().contains("being sent"), held.getMessage());
            while (records.get() < before + 10) Thread.sleep(5); // the mount goes on serving the writer
            stalled.close();

            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            repl.send("sa/src@one", null, stream); // through sa's control socket: its mount does the I/O
            assertTrue(records.get() > before, "writes went on");
            repl.send("sa/src@two", "@one", inc);

            // into the other mounted pool, as a new dataset (not mounted); a mounted target refuses an incremental
            repl.receive("sb/copy", new ByteArrayInputStream(stream.toByteArray()), false);
            IOException unrelated = assertThrows(IOException.class,
                    () -> repl.receive("sb/busy", new ByteArrayInputStream(inc.toByteArray()), true));
            assertTrue(unrelated.getMessage().contains("not the stream's source"), unrelated.getMessage());
            byte[] bad = stream.toByteArray().clone();
            bad[bad.length / 2] ^= 1;
            IOException corrupt = assertThrows(IOException.class, () -> repl.receive("sb/other", new ByteArrayInputStream(bad), false));
            System.out.println("corrupted stream: " + corrupt.getMessage());
            assertEquals(java.util.Set.of("sb", "sb/busy", "sb/copy"), java.util.Set.copyOf(b.datasets()), "a refused stream leaves nothing behind");
        } finally {
            stop.set(true);
            writer.join();
        }

        Mount mc = mount(mpC, new PoolFs(b.dataset("sb/copy"), false));
        try {
            TreeImage sent = TreeImage.of(mpA.resolve(".snapshots/one"));
            TreeImage got = TreeImage.of(mpC);
            assertEquals(sent.linkGroups(), got.linkGroups(), "hard links");
            assertEquals(List.of(List.of("hard", "sub/hard2")), got.linkGroups());
            assertEquals(sent.entries().keySet(), got.entries().keySet(), "names");
            for (String k : sent.entries().keySet()) assertEquals(sent.entries().get(k), got.entries().get(k), k);
            assertTrue(got.entries().get("sparse").contains("data=0-4096,8388608-8392704"), got.entries().get("sparse"));
            System.out.println("received tree identical to the snapshot: " + got.entries().size() + " entries");
            assertFalse(Files.exists(mpC.resolve(".snapshots")), "the copy is served without snapshot views here");

            // an incremental stream into the mounted copy: the kernel's pages, attributes and names are dropped
            assertEquals("small file\n", Files.readString(mpC.resolve("small")));
            long logBefore = Files.size(mpC.resolve("busy/log"));
            repl.receive("sb/copy", new ByteArrayInputStream(inc.toByteArray()), false);
            assertEquals("changed after one\n", Files.readString(mpC.resolve("small")), "no stale page after the receive");
            assertTrue(Files.size(mpC.resolve("busy/log")) > logBefore, "no stale size after the receive");
            TreeImage two = TreeImage.of(mpA.resolve(".snapshots/two"));
            TreeImage now = TreeImage.of(mpC);
            assertEquals(two.linkGroups(), now.linkGroups(), "hard links after the incremental receive");
            assertEquals(two.entries().keySet(), now.entries().keySet(), "names after the incremental receive");
            for (String k : two.entries().keySet()) assertEquals(two.entries().get(k), now.entries().get(k), k);

            // -F into the mounted copy changed since @two: rolled back (caches dropped), then received
            Files.writeString(mpA.resolve("three"), "three\n");
            run(admin, "snapshot", "sa/src@three");
            ByteArrayOutputStream inc3 = new ByteArrayOutputStream();
            repl.send("sa/src@three", "@two", inc3);
            Files.writeString(mpC.resolve("local"), "made on the copy\n");
            IOException changed = assertThrows(IOException.class,
                    () -> repl.receive("sb/copy", new ByteArrayInputStream(inc3.toByteArray()), false));
            assertTrue(changed.getMessage().contains("-F"), changed.getMessage());
            assertTrue(Files.exists(mpC.resolve("local")));
            repl.receive("sb/copy", new ByteArrayInputStream(inc3.toByteArray()), true);
            assertFalse(Files.exists(mpC.resolve("local")), "no stale name after receive -F");
            assertEquals("three\n", Files.readString(mpC.resolve("three")));
        } finally {
            MountedFsKit.closeOrForce(mc, mpC, Duration.ofSeconds(20));
        }
        assertTrue(run(admin, "list", "sb/copy").contains("sb/copy@three"));
    }

    /** Files of every kind with set owners, modes, times and xattrs; a hard link, a symlink, holes. */
    static void populate(Path mp) throws IOException {
        Random rnd = new Random(11);
        byte[] big = new byte[12 << 20];
        rnd.nextBytes(big);
        Files.write(mp.resolve("big"), big);
        Files.writeString(mp.resolve("small"), "small file\n");
        Files.createFile(mp.resolve("empty"));
        Files.createDirectories(mp.resolve("sub/deeper"));
        Files.write(mp.resolve("hard"), java.util.Arrays.copyOf(big, 300_001));
        Files.createLink(mp.resolve("sub/hard2"), mp.resolve("hard"));
        Files.createSymbolicLink(mp.resolve("sub/link"), Path.of("../small"));
        try (FileChannel c = FileChannel.open(mp.resolve("sparse"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap("head".getBytes(StandardCharsets.UTF_8)), 0);
            c.write(ByteBuffer.wrap("tail".getBytes(StandardCharsets.UTF_8)), 8 << 20);
        }
        try (RandomAccessFile f = new RandomAccessFile(mp.resolve("sparse").toFile(), "rw")) {
            f.setLength(12L << 20); // a hole at the end too
        }
        var small = Files.getFileAttributeView(mp.resolve("small"), UserDefinedFileAttributeView.class);
        small.write("user.color", StandardCharsets.UTF_8.encode("blue"));
        byte[] large = new byte[10_000];
        rnd.nextBytes(large);
        small.write("user.large", ByteBuffer.wrap(large));
        Files.setAttribute(mp.resolve("small"), "unix:uid", 1234);
        Files.setAttribute(mp.resolve("small"), "unix:gid", 2345);
        Files.setPosixFilePermissions(mp.resolve("small"), PosixFilePermissions.fromString("rw-r-----"));
        Files.setAttribute(mp.resolve("big"), "unix:uid", 4321);
        Files.setAttribute(mp.resolve("big"), "unix:mode", 04755);
        Files.setAttribute(mp.resolve("sub/link"), "unix:uid", 77, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(mp.resolve("sub/deeper"), PosixFilePermissions.fromString("rwx------"));
        FileTime t1 = FileTime.from(Instant.parse("2001-02-03T04:05:06.123456789Z"));
        FileTime t2 = FileTime.from(Instant.parse("2011-12-13T14:15:16.987654321Z"));
        for (String p : List.of("small", "big", "hard", "sparse", "sub/deeper", "sub")) {
            var v = Files.getFileAttributeView(mp.resolve(p), java.nio.file.attribute.BasicFileAttributeView.class);
            v.setTimes(t1, t2, null);
        }
    }
}
