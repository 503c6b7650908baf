package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.testkit.internal.ErrnoException;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What must hold when a filesystem or its server misbehaves. Runs on {@link TinyFs} wrapped in
 * {@link FaultyFs}; once memfs lands the same tests run over MemFs (see DESIGN.md).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RobustnessTest {
    private static final MountOptions OPTIONS = MountOptions.defaults().withAllowOther(true);

    @RegisterExtension
    static final FuseMount FAULTY = FuseMount.of(() -> new FaultyFs(new TinyFs())).timeout(Duration.ofSeconds(90))
            .freshDirectories(false);

    private static String under(Path mp, String name) { return mp.resolve(name).toString(); }

    @Test
    void aThrowingCallbackAnswersEioAndTheMountKeepsWorking() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertErrno(Errno.EIO, () -> Libc.stat(under(FAULTY.root(), "boom")));
            assertArrayEquals(TinyFs.HELLO, Files.readAllBytes(FAULTY.root().resolve("hello")));
        }
        assertTrue(FAULTY.mount().isAlive());
    }

    @Test
    void theExtensionExposesRootMountAndTestDir() {
        assertEquals(FAULTY.root(), FAULTY.testDir());
        assertEquals(FAULTY.root(), FAULTY.mount().mountpoint());
    }

    @Test
    void aCallbackThatNeverRepliesDoesNotHangUnmount() throws Exception {
        Path mp = MountedFsKit.newMountpoint("hang");
        FaultyFs fs = new FaultyFs(new TinyFs());
        Mount m = Fuse.mount(mp, fs, OPTIONS);
        try (Procs.Child stat = Procs.start(List.of("stat", under(mp, "hang")))) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (fs.parked.isEmpty() && System.nanoTime() < end) Thread.sleep(10);
            assertEquals(1, fs.parked.size(), "the lookup reached the filesystem");
            assertTrue(stat.process().isAlive(), "the caller waits for the answer");
            assertTrue(MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(20)), "close returned by itself");
            Procs.Result r = stat.await(Duration.ofSeconds(20));
            assertNotEquals(0, r.exit(), "the waiting caller ends with an error");
        } finally {
            MountedFsKit.forceUnmount(mp);
        }
        assertTrue(MountedFsKit.mountAt(mp).isEmpty());
    }

    @Test
    void unmountWithAHundredOperationsInFlightReturnsCleanly() throws Exception {
        Path mp = MountedFsKit.newMountpoint("inflight");
        FaultyFs fs = new FaultyFs(new TinyFs());
        Mount m = Fuse.mount(mp, fs, OPTIONS);
        Set<String> outcomes = ConcurrentHashMap.newKeySet();
        List<Thread> callers = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                String name = under(mp, "slow-" + i);
                callers.add(Thread.ofPlatform().daemon().start(() -> {
                    try {
                        Libc.stat(name);
                        outcomes.add("OK");
                    } catch (ErrnoException e) {
                        outcomes.add(String.valueOf(e.error()));
                    }
                }));
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (fs.slowSeen.get() < 50 && System.nanoTime() < end) Thread.sleep(5);
            assertTrue(fs.slowSeen.get() >= 50, "operations in flight: " + fs.slowSeen.get());
            long t0 = System.nanoTime();
            assertTrue(MountedFsKit.closeOrForce(m, mp, Duration.ofSeconds(30)), "close returned by itself");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30));
            for (Thread t : callers) {
                t.join(20_000);
                assertTrue(!t.isAlive(), "a caller is still blocked after unmount");
            }
        } finally {
            MountedFsKit.forceUnmount(mp);
        }
        // ECONNABORTED: the requests still pending when close() aborted the connection
        assertTrue(Set.of("ENOENT", "ENOTCONN", "ECONNABORTED", "EIO", "EINTR").containsAll(outcomes), outcomes.toString());
    }

    @Test
    void killMinus9OfTheServerLeavesEnotconnAndClearStaleAllowsANewMount() throws Exception {
        Path mp = MountedFsKit.newMountpoint("killed");
        String java = ProcessHandle.current().info().command().orElse("java");
        try (Procs.Child server = Procs.start(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), TinyServerMain.class.getName(), mp.toString()))) {
            server.awaitOutput("READY", Duration.ofSeconds(60));
            assertEquals("hello world", Procs.run("cat", under(mp, "hello")).out().trim());
            server.process().destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            // The kernel tears a dead server's connection down asynchronously (its io_uring rings in a
            // workqueue): a caller caught in between gets ECANCELED or ECONNABORTED; never a hang, then ENOTCONN.
            Procs.Result stat;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            do {
                stat = Procs.run(Duration.ofSeconds(20), List.of("stat", under(mp, "hello")));
                assertNotEquals(0, stat.exit());
                if (stat.err().contains("Transport endpoint is not connected")) break;
                assertTrue(stat.err().contains("Operation canceled") || stat.err().contains("connection abort"), stat.err());
                Thread.sleep(100);
            } while (System.nanoTime() < end);
            assertTrue(stat.err().contains("Transport endpoint is not connected"), stat.err());
            assertErrno(Errno.ENOTCONN, () -> Libc.stat(mp.toString()));
            assertTrue(Fuse.clearStale(mp), "a stale mount was cleared");
            try (Mount again = Fuse.mount(mp, new TinyFs(), OPTIONS)) {
                assertArrayEquals(TinyFs.HELLO, Files.readAllBytes(mp.resolve("hello")));
                again.close();
                assertTrue(MountedFsKit.mountAt(mp).isEmpty());
            }
        } finally {
            MountedFsKit.forceUnmount(mp);
        }
    }

    @Test
    void theWatchdogUnsticksAHungCallerByAbortingTheConnection() throws Exception {
        Path mp = MountedFsKit.newMountpoint("watchdog");
        Mount m = Fuse.mount(mp, new FaultyFs(new TinyFs()), OPTIONS);
        try {
            long t0 = System.nanoTime();
            AssertionError e = assertThrows(AssertionError.class,
                    () -> MountedFsKit.withTimeout(Duration.ofSeconds(2), mp, () -> Libc.stat(under(mp, "hang"))));
            assertTrue(e.getMessage().contains("force-unmounted"), e.getMessage());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15));
            assertTrue(MountedFsKit.mountAt(mp).isEmpty(), "the mount was detached");
        } finally {
            m.close();
            MountedFsKit.forceUnmount(mp);
        }
    }
}
