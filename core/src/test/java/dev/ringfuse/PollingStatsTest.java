package dev.ringfuse;

import dev.ringfuse.stats.StatsSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A mount's statistics carry its serving threads' polling counters ({@code spin.q0 ...}, {@code spin ...}),
 * and they move under a QD1 load: one thread looking up a missing name, one request at a time.
 */
@Timeout(120)
class PollingStatsTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void countersAppearAndMoveUnderAQd1Load(TransportKind transport) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withThreads(2).withTransport(transport))) {
            Path socket = StatsSocket.locate(mnt);
            lookUps(mnt, 500);
            Map<String, long[]> before = spinLines(StatsSocket.read(socket));
            lookUps(mnt, 2_000);
            String after = StatsSocket.read(socket);
            Map<String, long[]> now = spinLines(after);
            String first = transport == TransportKind.URING ? "spin.q0" : "spin.r0";
            assertTrue(now.containsKey(first) && now.containsKey("spin"), after);
            assertEquals(now.keySet(), before.keySet(), "the same threads: " + after);
            long[] sum = now.get("spin"), was = before.get("spin");
            // ENOENT lookups are not cached: each is a request; published per window of 32, so each thread may
            // hold back up to 31 of them
            int threads = now.size() - 1;
            assertTrue(sum[4] - was[4] >= 2_000 - 31L * threads, "requests " + was[4] + " -> " + sum[4] + "\n" + after);
            assertTrue(sum[5] > was[5], "windows moved\n" + after);
            assertTrue(sum[3] > was[3], "time served moved\n" + after);
            long perQueue = now.entrySet().stream().filter(e -> !e.getKey().equals("spin")).mapToLong(e -> e.getValue()[4]).sum();
            assertEquals(sum[4], perQueue, "the sum line adds up the threads");
            assertTrue(now.get(first).length == 14, "every counter and the budget: " + after);
        }
    }

    private static void lookUps(Path mnt, int n) {
        for (int i = 0; i < n; i++) assertFalse(Files.exists(mnt.resolve("missing")));
    }

    /** The {@code spin...} lines: key -> the values of its {@code counter value} pairs. */
    private static Map<String, long[]> spinLines(String snapshot) {
        Map<String, long[]> out = new HashMap<>();
        for (String l : snapshot.split("\n")) {
            if (!l.startsWith("spin")) continue;
            String[] f = l.split(" ");
            assertEquals(1, f.length % 2, "key then counter value pairs: " + l);
            long[] v = new long[f.length / 2];
            for (int i = 0; i < v.length; i++) v[i] = Long.parseLong(f[2 + 2 * i]);
            assertEquals(f[1], "polls", l);
            out.put(f[0], v);
        }
        assertFalse(out.isEmpty(), snapshot);
        return out;
    }
}
