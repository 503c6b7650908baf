package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a server JVM with a mounted dataset: after import, everything fsynced before the kill is there,
 * nothing is half-applied (the file written without fsync is absent or whole), and the pool verifies clean.
 * Also under the kernel's writeback cache, where fsync must first bring the dirty pages (among them a page
 * rewritten in part through a write-only descriptor, which the kernel fills by a READ on it).
 */
@Timeout(240)
class KillMinus9Test {
    @TempDir
    Path tmp;

    @Test
    void lastCommittedStateAfterKill() throws Exception {
        killAndCheck(false);
    }

    @Test
    void lastCommittedStateAfterKillWithWritebackCache() throws Exception {
        killAndCheck(true);
    }

    private void killAndCheck(boolean writeback) throws Exception {
        Path img = tmp.resolve("k.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Pool.create("k", List.<BlockDevice>of(UringBlockDevice.open(img))).createDataset("k/d", Map.of("compression", "lz4"))
                .pool().export(false);
        Path mp = MountedFsKit.newMountpoint("pool-kill");
        byte[] synced = new byte[5 << 20];
        new Random(1).nextBytes(synced);
        byte[] expected = synced.clone();
        System.arraycopy(synced, 0, expected, 4096 * 3 + 1000, 100);
        byte[] unsynced = new byte[3 << 20];
        new Random(2).nextBytes(unsynced);
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        Process server = new ProcessBuilder(javaBin, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                PoolServerMain.class.getName(), img.toString(), "k/d", mp.toString(), writeback ? "writeback" : "-")
                .redirectErrorStream(true).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream()));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    String l;
                    while ((l = r.readLine()) != null) if (l.equals("READY")) return l;
                    return null;
                } catch (java.io.IOException e) {
                    return null;
                }
            }).get(60, TimeUnit.SECONDS);
            assertEquals("READY", line);
            MountedFsKit.withTimeout(java.time.Duration.ofSeconds(60), mp, () -> {
                try (FileChannel c = FileChannel.open(mp.resolve("synced"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    c.write(ByteBuffer.wrap(synced));
                    c.force(true);
                }
                // a part of one page rewritten through a new write-only descriptor, the page not cached:
                // under the writeback cache the kernel reads the page in on this O_WRONLY handle first
                Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
                try (FileChannel c = FileChannel.open(mp.resolve("synced"), StandardOpenOption.WRITE)) {
                    c.write(ByteBuffer.wrap(synced, 0, 100), 4096 * 3 + 1000);
                    c.force(false);
                }
                Files.createDirectory(mp.resolve("dir"));
                try (FileChannel c = FileChannel.open(mp.resolve("dir"), StandardOpenOption.READ)) {
                    c.force(true); // fsyncdir commits the directory too
                }
                Files.write(mp.resolve("unsynced"), unsynced);
                return null;
            });
            server.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
        } finally {
            server.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            MountedFsKit.forceUnmount(mp);
        }
        Pool pool = Pool.open(List.<BlockDevice>of(UringBlockDevice.open(img)));
        PoolFsMountTest.mounted(pool, "k/d", mp, () -> {
            assertArrayEquals(expected, Files.readAllBytes(mp.resolve("synced")));
            assertTrue(Files.isDirectory(mp.resolve("dir")));
            if (Files.exists(mp.resolve("unsynced"))) {
                byte[] got = Files.readAllBytes(mp.resolve("unsynced"));
                assertTrue(got.length == 0 || java.util.Arrays.equals(unsynced, got)
                        || java.util.Arrays.equals(unsynced, 0, got.length, got, 0, got.length)
                        || writeback && pagesWrittenOrZero(unsynced, got), "a prefix at most");
            }
            return null;
        });
        PoolVerifier.Report rep = PoolVerifier.verify(pool, null);
        assertTrue(rep.clean(), rep.errors().toString());
        pool.export(false);
    }

    /**
     * Under the writeback cache the pages of an unsynced file go out as concurrent background requests, so a
     * timed commit may take a later one before an earlier: each page is then the written bytes or zeros.
     */
    private static boolean pagesWrittenOrZero(byte[] written, byte[] got) {
        if (got.length > written.length) return false;
        for (int at = 0; at < got.length; at += 4096) {
            int end = Math.min(got.length, at + 4096);
            boolean same = java.util.Arrays.equals(written, at, end, got, at, end);
            boolean zero = java.util.Arrays.equals(new byte[end - at], 0, end - at, got, at, end);
            if (!same && !zero) return false;
        }
        return true;
    }
}
