package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The size= limit bounds what memfs keeps resident, warm slots included. A review of the warm slots found a
 * 128 MiB file deleted and then 2,048 files of 4 KiB created left ~128 MiB resident against 8 MiB counted
 * (a reused slot kept every page of its previous file, zeroed), and each round added as much again: a mount
 * grew past its size without bound. Resident chunk memory must stay within what files count plus what is warm.
 */
class WarmSlotLimitTest {
    private static final long MIB = 1 << 20;
    private static final int SMALL_FILES = 2048;

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void residentMemoryStaysWithinSizeUnderDeleteCreateChurn() throws Exception {
        Probes.assumeTransport(TransportKind.DEV);
        long capacity = 192 * MIB;
        MemFs fs = new MemFs(MemFs.Options.builder().capacityBytes(capacity).build());
        byte[] page = new byte[ChunkStore.PAGE];
        Arrays.fill(page, (byte) 7);
        try (Mount m = Fuse.mount(tmp, fs, MountOptions.defaults())) {
            Path root = m.mountpoint();
            for (int round = 0; round < 4; round++) {
                long small = (long) round * SMALL_FILES * page.length;
                Path big = root.resolve("big");
                writeFile(big, 128 * MIB);
                Files.delete(big);
                awaitUsed(fs, small); // the kernel's FORGET frees the file, shortly after unlink returns
                for (int i = 0; i < SMALL_FILES; i++) Files.write(root.resolve("r" + round + "-" + i), page);
                long warm = fs.memory.warmBytes(); // read first: a trim in between only lowers resident
                long resident = fs.memory.residentBytes();
                long used = fs.table.limits.usedBytes();
                assertEquals(small + SMALL_FILES * page.length, used);
                assertTrue(resident <= used + warm, "round " + round + ": " + resident / MIB + " MiB resident, "
                        + used / MIB + " MiB counted, " + warm / MIB + " MiB warm");
                assertTrue(resident <= capacity, "round " + round + ": " + resident / MIB
                        + " MiB resident on a mount of " + capacity / MIB + " MiB");
            }
        }
    }

    private static void awaitUsed(MemFs fs, long bytes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fs.table.limits.usedBytes() != bytes && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals(bytes, fs.table.limits.usedBytes(), "the deleted file's pages were not released");
    }

    private static void writeFile(Path f, long bytes) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect((int) MIB);
        for (int i = 0; i < MIB; i++) buf.put(i, (byte) (i * 31 + 7));
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (long off = 0; off < bytes; off += MIB) ch.write(buf.clear(), off);
        }
    }
}
