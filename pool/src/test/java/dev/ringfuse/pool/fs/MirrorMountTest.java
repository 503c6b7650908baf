package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.admin.PoolAdmin;
import dev.ringfuse.pool.admin.PoolControl;
import dev.ringfuse.pool.admin.PoolRegistry;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demonstration on a real mount of a 2-way mirror of image files, driven through the control
 * socket as `ringfuse pool status|scrub|replace` do when the pool is mounted: one side's whole data area is
 * overwritten with random bytes while mounted, every file still reads back right (the kernel's page cache and
 * the pool's block cache dropped first), status shows the checksum errors, a scrub (with a writer busy on the
 * mount) repairs them and a second finds none. Then a side goes missing: the pool imports DEGRADED and serves,
 * replace resilvers a new image while mounted, and that image alone then holds every file. A side that was
 * away while the pool changed is caught up with what it missed while mounted and busy.
 */
@Timeout(600)
class MirrorMountTest {
    static final long IMG = 160L << 20;

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();

    private String run(String what, ThrowingCall call) throws Exception {
        outBytes.reset();
        int rc = call.run();
        String out = outBytes.toString(StandardCharsets.UTF_8);
        System.out.print(out);
        assertEquals(0, rc, what + ": " + out);
        return out;
    }

    interface ThrowingCall {
        int run() throws Exception;
    }

    @Test
    void damagedSideHealsScrubsCleanAndAMissingSideIsReplaced() throws Exception {
        Path a = tmp.resolve("a.img"), b = tmp.resolve("b.img"), c = tmp.resolve("c.img");
        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        PoolAdmin admin = new PoolAdmin(registry, new PrintStream(outBytes, true, StandardCharsets.UTF_8), System.err);
        admin.create("mm", List.of(Path.of("mirror"), a, b), IMG);
        Map<String, byte[]> files = new TreeMap<>();
        Path mp = MountedFsKit.newMountpoint("mirrorfs");

        Pool pool = admin.open("mm");
        pool.createDataset("mm/fs", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        try (PoolControl control = admin.control(pool)) {
            PoolFsMountTest.mounted(pool, "mm/fs", mp, () -> {
                damageHealScrub(admin, pool, mp, b, files);
                return null;
            }, Duration.ofSeconds(400));
        }
        assertTrue(PoolVerifier.verify(pool, null).clean());
        pool.close();

        Files.delete(b); // the side is gone: the pool imports DEGRADED and serves from the other one
        Pool degraded = admin.open("mm");
        assertEquals("DEGRADED", degraded.vdevs().poolState());
        try (PoolControl control = admin.control(degraded)) {
            PoolFsMountTest.mounted(degraded, "mm/fs", mp, () -> {
                checkFiles(mp, files);
                write(mp, "after-degraded", 300_000, 77, files);
                String st = run("status", () -> status(admin));
                assertTrue(st.contains("state: DEGRADED") && st.contains("UNAVAIL"), st);
                String rep = run("replace", () -> admin.replace("mm", b.toString(), c));
                assertTrue(rep.contains("resilvered"), rep);
                st = run("status", () -> status(admin));
                assertTrue(st.contains("state: ONLINE") && st.contains(c.toAbsolutePath().toString()), st);
                checkFiles(mp, files);
                return null;
            }, Duration.ofSeconds(300));
        }
        assertTrue(PoolVerifier.verify(degraded, null).clean());
        degraded.close();
        assertEquals(List.of(a.toAbsolutePath(), c.toAbsolutePath()), registry.devices("mm"));

        Files.delete(a); // the new image alone holds everything
        Pool onlyNew = admin.open("mm");
        assertEquals("DEGRADED", onlyNew.vdevs().poolState());
        PoolFsMountTest.mounted(onlyNew, "mm/fs", mp, () -> {
            checkFiles(mp, files);
            return null;
        });
        assertTrue(PoolVerifier.verify(onlyNew, null).clean());
        onlyNew.close();
    }

    private int status(PoolAdmin admin) throws IOException {
        return status(admin, "mm");
    }

    private int status(PoolAdmin admin, String pool) throws IOException {
        admin.status(pool);
        return 0;
    }

    /**
     * A side away while the pool changed comes back behind: RESILVERING in status, no read goes to it; `pool
     * scrub` through the control socket, with a writer busy on the mount, first copies onto it only the blocks
     * born while it was away, then scrubs and repairs nothing; that side alone then serves every file.
     */
    @Test
    void aSideThatWasAwayCatchesUpWhileMountedAndBusy() throws Exception {
        Path a = tmp.resolve("a.img"), b = tmp.resolve("b.img"), away = tmp.resolve("b.away");
        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        PoolAdmin admin = new PoolAdmin(registry, new PrintStream(outBytes, true, StandardCharsets.UTF_8), System.err);
        admin.create("mb", List.of(Path.of("mirror"), a, b), IMG);
        Map<String, byte[]> files = new TreeMap<>();
        Path mp = MountedFsKit.newMountpoint("mirrorback");
        Pool pool = admin.open("mb");
        pool.createDataset("mb/fs", Map.of("compression", "off", "recordsize", "128K"));
        pool.commit();
        PoolFsMountTest.mounted(pool, "mb/fs", mp, () -> {
            for (int i = 0; i < 24; i++) write(mp, "f" + i, (1 << 20) + i * 1000, i, files);
            return null;
        });
        pool.close();

        Files.move(b, away);
        Pool degraded = admin.open("mb");
        assertEquals("UNAVAIL", degraded.vdevs().state(1));
        PoolFsMountTest.mounted(degraded, "mb/fs", mp, () -> {
            write(mp, "while-away", 300_000, 50, files);
            write(mp, "f3", 200_000, 60, files); // an overwrite: b's old copy of f3 is stale
            Files.delete(mp.resolve("f4"));
            files.remove("f4");
            return null;
        });
        degraded.close();
        Files.move(away, b);

        Pool back = admin.open("mb");
        assertEquals("RESILVERING", back.vdevs().state(1));
        try (PoolControl control = admin.control(back)) {
            PoolFsMountTest.mounted(back, "mb/fs", mp, () -> {
                dropCaches(back);
                checkFiles(mp, files);
                var sb = back.vdevs().stats(1);
                assertEquals(0, sb.checksumErrors.get() + sb.readErrors.get(), "no read went to the side that is behind");
                String st = run("status", () -> status(admin, "mb"));
                assertTrue(st.contains("RESILVERING") && st.contains("came back") && st.contains("state: DEGRADED"), st);
                AtomicBoolean stop = new AtomicBoolean();
                Map<String, byte[]> busy = new ConcurrentHashMap<>();
                java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; !stop.get(); i++) {
                            write(mp, "busy" + (i % 10), 65_536, 2000 + i, busy);
                            assertArrayEquals(busy.get("busy" + (i % 10)), Files.readAllBytes(mp.resolve("busy" + (i % 10))));
                        }
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                });
                String out;
                try {
                    out = run("scrub", () -> admin.scrub("mb"));
                } finally {
                    stop.set(true);
                    writer.join();
                }
                if (failed.get() != null) throw new AssertionError("the writer beside the catch-up failed", failed.get());
                assertTrue(out.contains("resilvered pool 'mb'") && out.contains(", 0 unrepairable"), out);
                assertTrue(out.contains("repaired 0B, unrepairable 0"), "the scrub after the catch-up finds nothing: " + out);
                st = run("status", () -> status(admin, "mb"));
                assertTrue(st.contains("state: ONLINE") && !st.contains("RESILVERING"), st);
                files.putAll(busy);
                dropCaches(back);
                checkFiles(mp, files);
                return null;
            }, Duration.ofSeconds(300));
        }
        assertTrue(PoolVerifier.verify(back, null).clean());
        back.close();

        Files.delete(a); // the side that was behind alone holds everything
        Pool onlyB = admin.open("mb");
        PoolFsMountTest.mounted(onlyB, "mb/fs", mp, () -> {
            dropCaches(onlyB);
            checkFiles(mp, files);
            return null;
        });
        assertTrue(PoolVerifier.verify(onlyB, null).clean());
        assertEquals(0, onlyB.vdevs().stats(1).checksumErrors.get(), "b held every block");
        onlyB.close();
    }

    private void damageHealScrub(PoolAdmin admin, Pool pool, Path mp, Path b, Map<String, byte[]> files) throws Exception {
        for (int i = 0; i < 48; i++) write(mp, "f" + i, (1 << 20) + i * 1000, i, files); // 48 MiB: a scrub of ~100 MiB
        for (int i = 0; i < 10; i++) write(mp, "small" + i, 100 + i, 100 + i, files);

        // side b's whole data area, [4 MiB, size - 512 KiB): the labels at both ends stay
        long end = Layout.allocEnd(Layout.usable(IMG));
        try (RandomAccessFile f = new RandomAccessFile(b.toFile(), "rw")) {
            byte[] junk = new byte[1 << 20];
            Random r = new Random(1);
            for (long at = Layout.ALLOC_START; at < end; at += junk.length) {
                r.nextBytes(junk);
                f.seek(at);
                f.write(junk, 0, (int) Math.min(junk.length, end - at));
            }
            f.getFD().sync();
        }
        dropCaches(pool);
        checkFiles(mp, files);
        long cksum = pool.vdevs().stats(1).checksumErrors.get();
        assertTrue(cksum > 0, "reads met side b's damage: " + pool.vdevs().stats(1));
        assertEquals(0, pool.vdevs().stats(0).checksumErrors.get());
        String st = run("status", () -> status(admin));
        String line = st.lines().filter(l -> l.contains(b.toAbsolutePath().toString())).findFirst().orElseThrow();
        assertTrue(Long.parseLong(line.trim().split("\\s+")[4]) > 0, "status shows the checksum errors: " + line);

        // a writer keeps the mount busy while the scrub runs
        AtomicBoolean stop = new AtomicBoolean();
        Map<String, byte[]> busy = new ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong scrubStart = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
        java.util.concurrent.atomic.AtomicLong scrubEnd = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
        java.util.concurrent.atomic.AtomicInteger during = new java.util.concurrent.atomic.AtomicInteger();
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    write(mp, "busy" + (i % 20), 65_536, 1000 + i, busy);
                    assertArrayEquals(busy.get("busy" + (i % 20)), Files.readAllBytes(mp.resolve("busy" + (i % 20))));
                    writes.incrementAndGet();
                    long now = System.nanoTime();
                    if (now > scrubStart.get() && now < scrubEnd.get()) during.incrementAndGet();
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        String first;
        try {
            while (writes.get() < 3 && failed.get() == null) Thread.sleep(5);
            scrubStart.set(System.nanoTime());
            first = run("scrub", () -> admin.scrub("mm"));
            scrubEnd.set(System.nanoTime());
        } finally {
            stop.set(true);
            writer.join();
        }
        if (failed.get() != null) throw new AssertionError("the writer beside the scrub failed", failed.get());
        System.out.println("writes (64 KiB, fsync, read back) beside the scrub: " + writes.get() + ", completed while it ran: "
                + during.get());
        assertTrue(during.get() > 0, "the mount kept serving writes during the scrub");
        assertTrue(first.contains("unrepairable 0") && !first.contains("repaired 0B"), first);
        checkFiles(mp, busy);
        files.putAll(busy);
        String second = run("second scrub", () -> admin.scrub("mm"));
        assertTrue(second.contains("repaired 0B, unrepairable 0"), second);
        dropCaches(pool);
        checkFiles(mp, files);
    }

    private static void dropCaches(Pool pool) throws IOException {
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
        pool.io().cache().clear();
    }

    static void write(Path mp, String name, int size, long seed, Map<String, byte[]> model) throws IOException {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        Files.write(mp.resolve(name), data);
        try (FileChannel ch = FileChannel.open(mp.resolve(name), StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        model.put(name, data);
    }

    static void checkFiles(Path mp, Map<String, byte[]> files) throws IOException {
        for (var e : files.entrySet()) assertArrayEquals(e.getValue(), Files.readAllBytes(mp.resolve(e.getKey())), e.getKey());
    }
}
