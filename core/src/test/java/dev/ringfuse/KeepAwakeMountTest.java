package dev.ringfuse;

import dev.ringfuse.stats.StatsSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The keep-awake threads of an io_uring mount (transport.KeepAwake): a hot QD1 stream starts them, they run in
 * SCHED_IDLE, they park once the stream stops and spend nothing while the mount rests, and they end with the
 * last io_uring mount; a sparse stream never starts them; {@code spin=0} has none.
 */
@Timeout(120)
class KeepAwakeMountTest {
    private static final int SCHED_IDLE = 5;

    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    @Test
    void aHotStreamStartsThemAndTheyRestWithTheMount() throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withTransport(TransportKind.URING))) {
            Path socket = StatsSocket.locate(mnt);
            long[] before = keepAwake(StatsSocket.read(socket));
            assumeTrue(before[0] > 0, "no keepers on this machine (one CPU, or a CPU quota): " + before[0]);
            long t0 = System.nanoTime();
            lookUps(mnt, 5_000);
            long micros = (System.nanoTime() - t0) / 5_000 / 1_000;
            String snapshot = StatsSocket.read(socket);
            long[] after = keepAwake(snapshot);
            assertTrue(after[0] >= 1, "keeper threads: " + snapshot);
            // a stream is hot when two requests come less than 50 µs apart: a machine too loaded for that
            // (QD1 round trips all longer) says nothing about the keepers
            assumeTrue(after[2] > before[2] || micros < 50, "QD1 lookups took " + micros + " µs each here");
            assertTrue(after[2] > before[2], "a QD1 stream of 5,000 requests (" + micros + " µs each) started them: " + snapshot);

            List<Thread> keepers = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("ringfuse-keepawake-")).toList();
            assertEquals(after[0], keepers.size(), "one thread per keeper");
            for (int tid : keeperTids()) {
                assertEquals(SCHED_IDLE, policy(tid), "keeper thread " + tid + " in SCHED_IDLE");
                // on the CPU of the queue thread that started it (the stream's CPU; KeepAwake.keep says why)
                assertFalse(allowedCpus("/proc/self/task/" + tid + "/status").matches(".*[-,].*"),
                        "keeper thread " + tid + " on one CPU: " + allowedCpus("/proc/self/task/" + tid + "/status"));
            }

            // the stream stopped: within a moment every keeper parks, and while the mount rests they spend nothing
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!keepers.stream().allMatch(t -> t.getState() == Thread.State.WAITING) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            keepers.forEach(t -> assertEquals(Thread.State.WAITING, t.getState(), t.getName() + " parked"));
            long kept = keepAwake(StatsSocket.read(socket))[1];
            assertTrue(kept > before[1], "they kept the CPUs awake for a while (counted when they park): " + kept);
            Thread.sleep(500);
            assertEquals(kept, keepAwake(StatsSocket.read(socket))[1], "no keeping while the mount rests");
        }
        // the mount was the process's last io_uring mount: its queues' end ends the keepers
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("ringfuse-keepawake-")) t.join(5_000);
        }
        assertEquals(List.of(), Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("ringfuse-keepawake-")).map(Thread::getName).toList(),
                "keeper threads left after the last io_uring mount ended");
    }

    @Test
    void aSparseStreamNeverStartsThem() throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withTransport(TransportKind.URING))) {
            Path socket = StatsSocket.locate(mnt);
            Thread.sleep(200); // the mount's own first requests are behind us
            long starts = keepAwake(StatsSocket.read(socket))[2];
            for (int i = 0; i < 20; i++) {
                lookUps(mnt, 1);
                Thread.sleep(3); // 3 ms apart: far beyond the 50 µs that makes a stream hot
            }
            assertEquals(starts, keepAwake(StatsSocket.read(socket))[2], "one request every 3 ms starts nothing");
        }
    }

    @Test
    void noPollingNoKeepers() throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        MountOptions o = MountOptions.defaults().withTransport(TransportKind.URING).withSpinMicros(0);
        try (Mount m = Fuse.mount(mnt, new HelloFs(), o)) {
            lookUps(mnt, 100);
            String snapshot = StatsSocket.read(StatsSocket.locate(mnt));
            assertFalse(snapshot.contains("keepawake"), snapshot);
        }
    }

    private static void lookUps(Path mnt, int n) {
        for (int i = 0; i < n; i++) assertFalse(Files.exists(mnt.resolve("missing")));
    }

    /** threads, kept_ns, starts of the {@code keepawake} line. */
    private static long[] keepAwake(String snapshot) {
        for (String l : snapshot.split("\n")) {
            String[] f = l.split(" ");
            if (!f[0].equals("keepawake")) continue;
            assertEquals(List.of("threads", "kept_ns", "starts"), List.of(f[1], f[3], f[5]), l);
            return new long[] {Long.parseLong(f[2]), Long.parseLong(f[4]), Long.parseLong(f[6])};
        }
        return fail("no keepawake line: " + snapshot);
    }

    /** The kernel thread ids of this process's keepers (their names, cut to 15 characters, in comm). */
    private static List<Integer> keeperTids() throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            List<Integer> out = tasks.filter(t -> {
                try {
                    return Files.readString(t.resolve("comm")).startsWith("ringfuse-keepaw");
                } catch (java.io.IOException e) {
                    return false; // a thread that ended meanwhile
                }
            }).map(t -> Integer.parseInt(t.getFileName().toString())).toList();
            assertFalse(out.isEmpty(), "keeper threads in /proc/self/task");
            return out;
        }
    }

    /** The Cpus_allowed_list line of a status file. */
    private static String allowedCpus(String status) throws Exception {
        return Files.readAllLines(Path.of(status)).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
                .findFirst().orElseThrow();
    }

    /** The scheduling policy of thread {@code tid}: field 41 of its stat (after the parenthesised name). */
    private static int policy(int tid) throws Exception {
        String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(f[41 - 3]);
    }
}
