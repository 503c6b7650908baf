package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** `mount pool -o readahead=`: the kernel's readahead window of the mount's bdi, 1 MiB unless told (ReadAhead). */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PoolReadAheadCliTest {
    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void unmountLeftovers() throws Exception {
        Cli.unmountAllUnder(dir);
    }

    private List<String> cmd(String... args) {
        return Cli.cmdWithPools(dir.resolve("pools"), args);
    }

    private void ok(String... args) throws Exception {
        Procs.Result r = Procs.run(Duration.ofSeconds(60), cmd(args));
        assertEquals(0, r.exit(), r.err());
    }

    @Test
    void theMountsReadaheadWindowIsSetAndReadsStayRight() throws Exception {
        ok("pool", "create", "ra", dir.resolve("ra.img").toString(), "--size", "256M");
        ok("fs", "create", "ra/d");
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        byte[] data = new byte[5 << 20];
        new java.util.Random(9).nextBytes(data);
        for (String[] c : new String[][] {{"", "1024"}, {"readahead=0", "128"}, {"readahead=512K", "512"}}) {
            List<String> args = new ArrayList<>(List.of("mount", "pool", "ra/d", mnt.toString()));
            if (!c[0].isEmpty()) args.addAll(List.of("-o", c[0]));
            try (Procs.Child s = Cli.serve(cmd(args.toArray(String[]::new)))) {
                assertEquals(c[1], Files.readString(ReadAhead.bdiFile(mnt)).trim(), "read_ahead_kb with -o " + c[0]);
                Path f = mnt.resolve("f");
                if (!Files.exists(f)) Files.write(f, data);
                Procs.Result drop = Procs.sh("sync; echo 1 > /proc/sys/vm/drop_caches");
                assertEquals(0, drop.exit(), drop.err());
                assertArrayEquals(data, Files.readAllBytes(f), "a sequential read through the window");
                Cli.unmount(mnt, s);
            }
        }
        Procs.Result r = Procs.run(Duration.ofSeconds(60), cmd("mount", "pool", "ra/d", mnt.toString(), "-o", "readahead=lots"));
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("readahead=lots: not a size"), r.err());
        assertNull(Cli.mountLine(mnt));
    }
}
