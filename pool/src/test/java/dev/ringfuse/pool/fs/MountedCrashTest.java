package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.CrashDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.CrashPoints;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import dev.ringfuse.testkit.internal.Libc;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts under a mounted dataset: files created, appended, renamed, punched (fallocate PUNCH_HOLE) and
 * removed through the kernel with fsyncs; the device loses power at a random write. After import the tree is exactly the state of the last
 * completed fsync (or of the interrupted commit), an fsync after the cut fails with EIO instead of hanging,
 * and the pool verifies clean.
 */
@Timeout(300)
class MountedCrashTest {
    static final int POINTS = Integer.getInteger("pool.mounted.crash.points", 16);
    private static final java.util.concurrent.atomic.AtomicInteger PUNCHES = new java.util.concurrent.atomic.AtomicInteger();

    @Test
    void randomPowerCutsUnderAMount() throws Exception {
        int cutInFsync = CrashPoints.run("mounted", POINTS, CrashPoints.master(), (seed, mode) -> onePoint(seed, mode) ? 1 : 0);
        System.out.println("mounted crash points: " + POINTS + ", power cut inside an fsync: " + cutInFsync
                + ", holes punched: " + PUNCHES.get());
        assertTrue(cutInFsync >= POINTS / 4, "most points cut the power during the workload: " + cutInFsync);
    }

    /**
     * The same under the kernel's writeback cache: each close(2) writes the file's pages back and each fsync
     * commits them, so the states are the same (pool/DESIGN.md, "Writeback cache").
     */
    @Test
    void randomPowerCutsUnderAMountWithWritebackCache() throws Exception {
        int cutInFsync = CrashPoints.run("mounted-writeback", POINTS, CrashPoints.master(),
                (seed, mode) -> onePoint(seed, mode, true) ? 1 : 0);
        System.out.println("mounted crash points with the writeback cache: " + POINTS + ", power cut inside an fsync: "
                + cutInFsync);
        assertTrue(cutInFsync >= POINTS / 4, "most points cut the power during the workload: " + cutInFsync);
    }

    static boolean onePoint(long seed, CrashDevice.Mode mode) throws Exception {
        return onePoint(seed, mode, false);
    }

    /** Returns true when the power cut hit an fsync (rather than the final commit at unmount). */
    static boolean onePoint(long seed, CrashDevice.Mode mode, boolean writeback) throws Exception {
        Random rnd = new Random(seed);
        CrashDevice dev = new CrashDevice(new MemoryDevice("m", 128L << 20));
        Pool pool = Pool.create("c", List.<BlockDevice>of(dev));
        pool.createDataset("c/d", Map.of("compression", rnd.nextBoolean() ? "lz4" : "off", "recordsize", "16K"));
        pool.commit();
        dev.cutAtWrite(rnd.nextInt(120));
        Path mp = MountedFsKit.newMountpoint("pool-crash");
        TreeMap<String, byte[]> model = new TreeMap<>();
        TreeMap<String, byte[]> lastGood = new TreeMap<>();
        TreeMap<String, byte[]>[] attempt = new TreeMap[] {null};
        PoolFs fs = new PoolFs(pool.dataset("c/d"), false, 0, writeback); // commits only at fsync: each is a known state
        Mount m = MountedFsKit.withTimeout(Duration.ofSeconds(30), mp, () -> Fuse.mount(mp, fs, MountOptions.defaults()));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(120), mp, () -> {
                for (int step = 0; step < 60; step++) {
                    String name = "f" + rnd.nextInt(12);
                    int op = rnd.nextInt(11);
                    if (op < 5) {
                        byte[] data = new byte[1 + rnd.nextInt(40_000)];
                        rnd.nextBytes(data);
                        boolean append = model.containsKey(name) && rnd.nextBoolean();
                        Files.write(mp.resolve(name), data, StandardOpenOption.CREATE,
                                append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING);
                        byte[] old = append ? model.get(name) : new byte[0];
                        byte[] now = java.util.Arrays.copyOf(old, old.length + data.length);
                        System.arraycopy(data, 0, now, old.length, data.length);
                        model.put(name, now);
                    } else if (op < 7 && model.containsKey(name)) {
                        String to = "g" + rnd.nextInt(12);
                        Files.move(mp.resolve(name), mp.resolve(to), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        model.put(to, model.remove(name));
                    } else if (op < 8 && model.containsKey(name)) {
                        Files.delete(mp.resolve(name));
                        model.remove(name);
                    } else if (op == 10 && model.containsKey(name) && model.get(name).length > 0) {
                        // a hole: whole records freed, the others rewritten with zeros where it cuts them
                        byte[] now = model.get(name).clone();
                        int off = rnd.nextInt(now.length), len = 1 + rnd.nextInt(40_000);
                        int fd = Libc.open(mp.resolve(name).toString(), Libc.O_RDWR, 0);
                        try {
                            Libc.fallocate(fd, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, off, len);
                        } finally {
                            Libc.close(fd);
                        }
                        java.util.Arrays.fill(now, off, (int) Math.min(now.length, (long) off + len), (byte) 0);
                        PUNCHES.incrementAndGet();
                        model.put(name, now);
                    } else if (!model.isEmpty()) {
                        TreeMap<String, byte[]> snap = new TreeMap<>(model);
                        try (FileChannel c = FileChannel.open(mp.resolve(model.firstKey()), StandardOpenOption.WRITE)) {
                            c.force(true);
                        } catch (IOException e) {
                            attempt[0] = snap; // the commit that met the power cut
                            return null;
                        }
                        lastGood.clear();
                        lastGood.putAll(snap);
                    }
                }
                return null;
            });
        } finally {
            MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20)); // its destroy commits, or fails on a dead device
        }
        boolean inFsync = attempt[0] != null;
        if (attempt[0] == null) attempt[0] = model;
        MemoryDevice after = dev.afterPowerLoss(mode, rnd);
        Pool again = Pool.open(List.<BlockDevice>of(after));
        TreeMap<String, byte[]> got = PoolFsMountTest.mounted(again, "c/d", mp, () -> read(mp));
        if (!same(got, lastGood) && !same(got, attempt[0])) {
            fail("after the power cut: " + got.keySet() + " is neither the last fsync " + lastGood.keySet()
                    + " nor the interrupted commit " + attempt[0].keySet());
        }
        PoolVerifier.Report r = PoolVerifier.verify(again, null);
        assertTrue(r.clean(), r.errors().toString());
        again.close();
        return inFsync;
    }

    static TreeMap<String, byte[]> read(Path mp) throws IOException {
        TreeMap<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(mp)) {
            for (Path p : s.toList()) out.put(p.getFileName().toString(), Files.readAllBytes(p));
        }
        return out;
    }

    static boolean same(TreeMap<String, byte[]> a, TreeMap<String, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) return false;
        for (String k : a.keySet()) if (!java.util.Arrays.equals(a.get(k), b.get(k))) return false;
        return true;
    }
}
