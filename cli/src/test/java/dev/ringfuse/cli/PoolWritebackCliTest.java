package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * `mount pool -o writeback` uses the kernel's writeback cache (pool/DESIGN.md, "Writeback cache"): 128 writes
 * of 8 KiB reach the pool as a few large WRITEs, or as 128 without the cache (the default, also named by
 * `-o nowriteback`); SEEK_HOLE finds the holes either way.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PoolWritebackCliTest {
    @TempDir
    Path dir;

    @AfterEach
    void unmountLeftovers() throws Exception {
        Cli.unmountAllUnder(dir);
    }

    private List<String> cmd(String... args) {
        return Cli.cmdWithPools(dir.resolve("pools"), args);
    }

    @Test
    void writebackOnRequestWriteThroughByDefault() throws Exception {
        assertEquals(0, Procs.run(Duration.ofSeconds(60), cmd("pool", "create", "wb", dir.resolve("wb.img").toString(), "--size", "256M")).exit());
        assertEquals(0, Procs.run(Duration.ofSeconds(60), cmd("fs", "create", "wb/d")).exit());
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        byte[] chunk = new byte[8192];
        java.util.Arrays.fill(chunk, (byte) 5);
        for (String opt : new String[] {"", "writeback", "nowriteback"}) {
            List<String> args = new ArrayList<>(List.of("mount", "pool", "wb/d", mnt.toString()));
            if (!opt.isEmpty()) args.addAll(List.of("-o", opt));
            try (Procs.Child s = Cli.serve(cmd(args.toArray(String[]::new)))) {
                Path f = mnt.resolve("f" + opt);
                long before = Cli.requests(mnt, "WRITE");
                try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    for (int i = 0; i < 128; i++) c.write(ByteBuffer.wrap(chunk), (1L << 20) + i * 8192L);
                    assertEquals(2L << 20, c.size(), "size");
                    c.force(true);
                }
                long writes = Cli.requests(mnt, "WRITE") - before;
                if (opt.equals("writeback")) assertTrue(writes <= 16, "writeback: " + writes + " WRITEs for 128 writes of 8 KiB");
                else assertTrue(writes >= 128, "-o " + opt + ": " + writes + " WRITEs for 128 writes of 8 KiB");
                Procs.Result seek = Procs.run(Procs.python(), "-c", "import os; fd = os.open('" + f + "', os.O_RDONLY); "
                        + "print(os.lseek(fd, 0, os.SEEK_DATA), os.lseek(fd, 0, os.SEEK_HOLE))");
                assertEquals("1048576 0", seek.out().trim(), seek.err());
                byte[] back = Files.readAllBytes(f);
                assertArrayEquals(new byte[1 << 20], java.util.Arrays.copyOf(back, 1 << 20));
                assertEquals(5, back[back.length - 1]);
                Cli.unmount(mnt, s);
            }
        }
        Procs.Result r = Procs.run(Duration.ofSeconds(60), cmd("mount", "pool", "wb/d", mnt.toString(), "-o", "writeback,nowriteback"));
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("writeback and nowriteback contradict"), r.err());
        assertNull(Cli.mountLine(mnt));
    }
}
