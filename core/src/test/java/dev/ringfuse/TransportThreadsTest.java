package dev.ringfuse;

import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.RequestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The serving threads with the default options: /dev/fuse readers grow with the number of requests in
 * flight, and adaptive polling (on by default) costs no CPU once requests stop.
 */
@Timeout(120)
class TransportThreadsTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    /** Lookups of "slow*" block until released: each one holds a reader. */
    static final class BlockingFs extends HelloFs {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
            if (name.startsWith("slow")) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                reply.error(Errno.ENOENT);
                return;
            }
            super.lookup(ctx, parent, name, reply);
        }
    }

    @Test
    void devReadersGrowWhileRequestsWaitForOne() throws Exception {
        BlockingFs fs = new BlockingFs();
        try (Mount m = Fuse.mount(dir, fs, MountOptions.defaults().withTransport(TransportKind.DEV))) {
            assertEquals(2, readers(m), "two readers after INIT: " + m.describe());
            int blocked = 6;
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < blocked; i++) {
                Path p = dir.resolve("slow" + i);
                Thread t = Thread.ofPlatform().start(() -> Files.exists(p));
                callers.add(t);
            }
            // every blocked lookup holds a reader, and each one that found no other reader waiting started one
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (readers(m) < blocked + 1 && System.nanoTime() < deadline) Thread.sleep(20);
            assertTrue(readers(m) >= blocked + 1, "readers grew: " + m.describe());
            assertTrue(Files.exists(dir.resolve("hello")), "a free reader still serves");
            fs.release.countDown();
            for (Thread t : callers) t.join(10_000);
            assertTrue(readers(m) <= MountOptions.autoThreads(), m.describe());
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void anIdleMountUsesNoCpuAfterABusyPeriod(TransportKind transport) throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withTransport(transport))) {
            assertEquals(MountOptions.DEFAULT_SPIN_MICROS, MountOptions.defaults().spinMicros(), "polling is on by default");
            Path hello = dir.resolve("hello");
            // back-to-back requests: the serving threads poll between them
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < end) Files.getAttribute(hello, "unix:ctime", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            Thread.sleep(100);   // the longest poll is 50 µs: every serving thread sleeps long before this
            long before = servingCpuTicks(transport);
            Thread.sleep(3000);
            long used = servingCpuTicks(transport) - before;
            // a polling thread would use about 300 ticks (3 s); sleeping ones none (a tick is 10 ms)
            assertTrue(used <= 2, "serving threads used " + used + " clock ticks while idle");
        }
    }

    private static int readers(Mount m) {
        Matcher x = Pattern.compile("(\\d+) threads").matcher(m.describe());
        assertTrue(x.find(), m.describe());
        return Integer.parseInt(x.group(1));
    }

    /** utime + stime (clock ticks) of this JVM's serving threads, from /proc/self/task/TID/stat. */
    private static long servingCpuTicks(TransportKind transport) throws java.io.IOException {
        long sum = 0;
        int n = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (java.io.IOException gone) {
                    continue;
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (!comm.startsWith("ringfuse-dev-") && !comm.startsWith("ringfuse-uring")) continue;
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                sum += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                n++;
            }
        }
        assertTrue(n > 0, "no serving threads found for " + transport);
        return sum;
    }
}
