package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.admin.PoolAdmin;
import dev.ringfuse.pool.admin.PoolControl;
import dev.ringfuse.pool.admin.PoolRegistry;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots on a real mount, driven through the control socket as `ringfuse snapshot` does: taken while a
 * writer runs (never half a write), read-only at .snapshots/NAME (hidden from the root's listing), rolled
 * back with the mount live (no stale page or name afterwards), destroyed, and cloned into a second mount.
 */
@Timeout(300)
class SnapshotMountTest {
    static final int RECORD = 64 * 1024;

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();

    private String run(PoolAdmin admin, String... args) throws Exception {
        outBytes.reset();
        int rc = admin.snapshotCommand(List.of(args));
        assertEquals(0, rc, String.join(" ", args));
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void snapshotsRollbackAndClonesOnALiveMount() throws Exception {
        Path img = tmp.resolve("s.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(512L << 20);
        }
        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        registry.put("s", List.of(img));
        PoolAdmin admin = new PoolAdmin(registry, new PrintStream(outBytes, true, StandardCharsets.UTF_8), System.err);
        Pool pool = Pool.create("s", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("s/fs", Map.of("compression", "lz4"));
        PoolControl control = PoolControl.start(registry, pool);
        Path mp = MountedFsKit.newMountpoint("snapfs");
        Path mp2 = MountedFsKit.newMountpoint("clonefs");
        SnapshotDirFs fs = new SnapshotDirFs(new PoolFs(pool.dataset("s/fs"), false), null);
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(240), mp, () -> {
                scenario(admin, pool, mp, mp2);
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20));
            control.close();
        }
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        assertTrue(r.clean(), r.errors().toString());
        pool.export(false);
    }

    private void scenario(PoolAdmin admin, Pool pool, Path mp, Path mp2) throws Exception {
        byte[] blob = new byte[1 << 20];
        new Random(3).nextBytes(blob);
        Files.write(mp.resolve("blob"), blob);
        Files.writeString(mp.resolve("text"), "version one\n");
        Files.createLink(mp.resolve("hard"), mp.resolve("blob"));
        Files.createSymbolicLink(mp.resolve("sym"), Path.of("text"));
        Files.createDirectories(mp.resolve("d/e"));
        Files.getFileAttributeView(mp.resolve("text"), UserDefinedFileAttributeView.class)
                .write("color", StandardCharsets.UTF_8.encode("blue"));

        // a writer appends whole records while the snapshot is taken: the snapshot holds whole records only
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong records = new AtomicLong();
        Thread writer = Thread.ofPlatform().start(() -> {
            try (FileChannel c = FileChannel.open(mp.resolve("log"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                byte[] rec = new byte[RECORD];
                while (!stop.get()) {
                    long i = records.get();
                    Arrays.fill(rec, (byte) (1 + i % 250));
                    ByteBuffer b = ByteBuffer.wrap(rec);
                    long at = i * RECORD;
                    while (b.hasRemaining()) at += c.write(b, at);
                    records.incrementAndGet();
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        while (records.get() < 20) Thread.sleep(5);
        String took = run(admin, "snapshot", "s/fs@one");
        assertTrue(took.contains("taken at txg"), took);
        stop.set(true);
        writer.join();
        System.out.print(took);

        // hidden from the root's listing, reachable by name, read-only, identical
        try (Stream<Path> s = Files.list(mp)) {
            assertFalse(s.anyMatch(p -> p.getFileName().toString().equals(".snapshots")), "hidden from readdir");
        }
        Path one = mp.resolve(".snapshots/one");
        assertTrue(Files.isDirectory(one));
        try (Stream<Path> s = Files.list(mp.resolve(".snapshots"))) {
            assertEquals(List.of("one"), s.map(p -> p.getFileName().toString()).toList());
        }
        assertArrayEquals(blob, Files.readAllBytes(one.resolve("blob")));
        assertEquals("version one\n", Files.readString(one.resolve("text")));
        assertEquals(2, (int) Files.getAttribute(one.resolve("hard"), "unix:nlink"));
        assertEquals(Path.of("text"), Files.readSymbolicLink(one.resolve("sym")));
        assertTrue(Files.isDirectory(one.resolve("d/e")));
        ByteBuffer color = ByteBuffer.allocate(16);
        Files.getFileAttributeView(one.resolve("text"), UserDefinedFileAttributeView.class).read("color", color);
        assertEquals("blue", new String(color.array(), 0, color.position(), StandardCharsets.UTF_8));
        byte[] log = Files.readAllBytes(one.resolve("log"));
        assertEquals(0, log.length % RECORD, "the snapshot holds whole writes only: " + log.length + " bytes");
        for (int r = 0; r < log.length / RECORD; r++) {
            for (int i = 0; i < RECORD; i++) assertEquals((byte) (1 + r % 250), log[r * RECORD + i], "record " + r);
        }
        FileSystemException rofs = assertThrows(FileSystemException.class, () -> Files.writeString(one.resolve("text"), "no"));
        assertTrue(String.valueOf(rofs.getMessage()).contains("Read-only"), rofs.getMessage());
        assertThrows(FileSystemException.class, () -> Files.createFile(one.resolve("new")));
        assertThrows(FileSystemException.class, () -> Files.delete(one.resolve("text")));

        // change the live dataset; the snapshot does not change
        Files.writeString(mp.resolve("text"), "version two, longer\n");
        Files.delete(mp.resolve("sym"));
        Files.writeString(mp.resolve("later"), "created after one\n");
        assertEquals("version one\n", Files.readString(one.resolve("text")));
        run(admin, "snapshot", "s/fs@two");
        Files.writeString(mp.resolve("text"), "version three\n");
        Files.write(mp.resolve("blob"), new byte[1 << 20]);
        Files.writeString(mp.resolve("third"), "3\n");
        // pages and names of the state after "two" are in the kernel's caches now
        assertEquals("version three\n", Files.readString(mp.resolve("text")));
        assertEquals(1 << 20, Files.readAllBytes(mp.resolve("blob")).length);
        assertTrue(Files.exists(mp.resolve("third")));
        Object thirdIno = Files.getAttribute(mp.resolve("third"), "unix:ino"); // the kernel holds this number now

        String listed = run(admin, "list", "s/fs");
        assertTrue(listed.contains("s/fs@one") && listed.contains("s/fs@two"), listed);

        run(admin, "rollback", "s/fs@two");
        assertEquals("version two, longer\n", Files.readString(mp.resolve("text")), "no stale page after rollback");
        assertArrayEquals(blob, Files.readAllBytes(mp.resolve("blob")));
        assertFalse(Files.exists(mp.resolve("third")), "no stale name after rollback");
        assertTrue(Files.exists(mp.resolve("later")));
        assertFalse(Files.exists(mp.resolve("sym"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        Files.writeString(mp.resolve("after-rollback"), "ok\n");
        assertNotEquals(thirdIno, Files.getAttribute(mp.resolve("after-rollback"), "unix:ino"),
                "a rollback never hands out an inode number the kernel may still hold");

        // a clone shares the snapshot's blocks and is writable; its origin cannot be destroyed meanwhile
        run(admin, "clone", "s/fs@one", "s/copy");
        PoolFs cloneFs = new PoolFs(pool.dataset("s/copy"), false);
        Mount m2 = Fuse.mount(mp2, cloneFs, MountOptions.defaults());
        try {
            assertEquals("version one\n", Files.readString(mp2.resolve("text")));
            assertArrayEquals(blob, Files.readAllBytes(mp2.resolve("blob")));
            Files.writeString(mp2.resolve("text"), "clone's own\n");
            assertEquals("clone's own\n", Files.readString(mp2.resolve("text")));
            assertEquals("version one\n", Files.readString(one.resolve("text")));
        } finally {
            MountedFsKit.closeOrForce(m2, mp2, Duration.ofSeconds(20));
        }
        outBytes.reset();
        Exception dependent = assertThrows(Exception.class, () -> admin.snapshotCommand(List.of("destroy", "s/fs@one")));
        assertTrue(dependent.getMessage().contains("clones"), dependent.getMessage());

        String destroyed = run(admin, "destroy", "s/fs@two");
        assertTrue(destroyed.contains("freed"), destroyed);
        assertFalse(Files.exists(mp.resolve(".snapshots/two")));
        System.out.print(listed + destroyed);
    }
}
