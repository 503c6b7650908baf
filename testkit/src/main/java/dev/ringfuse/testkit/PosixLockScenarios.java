package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.withFd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** POSIX record locks (fcntl) and flock(2), held by this JVM and tested from child processes. */
public interface PosixLockScenarios extends ScenarioContext {
    /** Python: F_GETLK over [start, start+len) for a write lock; prints "type start len pid". */
    String GETLK = """
            def getlk(fd, start, length):
                r = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhxxxxqqixxxx", fcntl.F_WRLCK, 0, start, length, 0))
                return struct.unpack("hhxxxxqqixxxx", r)
            def setlk(fd, kind, start, length):
                fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack("hhxxxxqqixxxx", kind, 0, start, length, 0))
            """;

    /** fcntl record locks held by one process conflict with another's, and F_GETLK reports the holder (POSIX_LOCKS). */
    @Test
    default void recordLocksConflictAcrossProcesses() throws Exception {
        requires(Feature.POSIX_LOCKS);
        Path f = file(dir().resolve("f"), "0123456789".repeat(100));
        withFd(f, Libc.O_RDWR, fd -> {
            Libc.setlk(fd, Libc.F_SETLK, Libc.F_WRLCK, 0, 100);
            Libc.setlk(fd, Libc.F_SETLK, Libc.F_RDLCK, 500, 100);
            Procs.Result r = Procs.python(GETLK + """
                    fd = os.open(sys.argv[1], os.O_RDWR)
                    print("getlk", *getlk(fd, 50, 10))
                    print("free", *getlk(fd, 100, 400))
                    t("write-0", lambda: setlk(fd, fcntl.F_WRLCK, 0, 1))
                    t("write-99", lambda: setlk(fd, fcntl.F_WRLCK, 99, 1))
                    t("write-100-499", lambda: setlk(fd, fcntl.F_WRLCK, 100, 400))
                    t("read-500", lambda: setlk(fd, fcntl.F_RDLCK, 500, 100))
                    t("write-550", lambda: setlk(fd, fcntl.F_WRLCK, 550, 1))
                    t("write-whole", lambda: setlk(fd, fcntl.F_WRLCK, 0, 0))
                    """, s(f));
            assertEquals(0, r.exit(), r.err());
            Map<String, String> out = r.outcomes();
            assertEquals("1 0 0 100 " + Libc.getpid(), out.get("getlk"), "F_GETLK names the holder and its range");
            assertEquals("2 0 100 400 0", out.get("free"), "F_GETLK reports F_UNLCK for a free range");
            assertEquals("EAGAIN", out.get("write-0"));
            assertEquals("EAGAIN", out.get("write-99"));
            assertEquals("OK", out.get("write-100-499"));
            assertEquals("OK", out.get("read-500"), "read locks share");
            assertEquals("EAGAIN", out.get("write-550"));
            assertEquals("EAGAIN", out.get("write-whole"));
            Libc.setlk(fd, Libc.F_SETLK, Libc.F_UNLCK, 0, 0);
            Procs.Result after = Procs.python(GETLK + """
                    fd = os.open(sys.argv[1], os.O_RDWR)
                    t("write-whole", lambda: setlk(fd, fcntl.F_WRLCK, 0, 0))
                    """, s(f));
            assertEquals("OK", after.outcomes().get("write-whole"), after.err());
        });
    }

    /** A record lock goes away when its process dies, and a process blocked in F_SETLKW then gets it (POSIX_LOCKS). */
    @Test
    default void recordLocksDieWithTheirProcessAndWaitersWake() throws Exception {
        requires(Feature.POSIX_LOCKS);
        Path f = file(dir().resolve("f"), "x");
        try (Procs.Child holder = Procs.start(Procs.pythonCmd(GETLK + """
                fd = os.open(sys.argv[1], os.O_RDWR)
                setlk(fd, fcntl.F_WRLCK, 0, 0)
                print("LOCKED", flush=True)
                time.sleep(120)
                """, s(f)))) {
            holder.awaitOutput("LOCKED", Duration.ofSeconds(30));
            int fd = Libc.open(s(f), Libc.O_RDWR, 0);
            try {
                assertErrno(Errno.EAGAIN, () -> Libc.setlk(fd, Libc.F_SETLK, Libc.F_WRLCK, 0, 0));
                assertEquals((int) holder.process().pid(), Libc.getlk(fd, Libc.F_WRLCK, 0, 0).pid());
                Thread killer = Thread.ofPlatform().start(() -> {
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        return;
                    }
                    holder.process().destroyForcibly();
                });
                long t0 = System.nanoTime();
                Libc.setlk(fd, Libc.F_SETLKW, Libc.F_WRLCK, 0, 0); // waits until the holder dies
                assertTrue(System.nanoTime() - t0 >= 200_000_000L, "F_SETLKW returned before the holder died");
                killer.join();
                assertEquals(Libc.F_UNLCK, Libc.getlk(fd, Libc.F_WRLCK, 0, 0).type(), "own locks never conflict");
            } finally {
                Libc.close(fd);
            }
        }
    }

    /** flock(LOCK_EX) held by one process keeps another out until released (FLOCK). */
    @Test
    default void flockIsExclusiveAcrossProcesses() throws Exception {
        requires(Feature.FLOCK);
        Path f = file(dir().resolve("f"), "x");
        withFd(f, Libc.O_RDONLY, fd -> {
            Libc.flock(fd, Libc.LOCK_EX);
            assertEquals(42, Procs.run("flock", "-n", "-E", "42", s(f), "true").exit(), "exclusive blocks exclusive");
            assertEquals(42, Procs.run("flock", "-s", "-n", "-E", "42", s(f), "true").exit(), "exclusive blocks shared");
            Libc.flock(fd, Libc.LOCK_SH);
            assertEquals(0, Procs.run("flock", "-s", "-n", "-E", "42", s(f), "true").exit(), "shared admits shared");
            assertEquals(42, Procs.run("flock", "-n", "-E", "42", s(f), "true").exit(), "shared blocks exclusive");
            Libc.flock(fd, Libc.LOCK_UN);
            assertEquals(0, Procs.run("flock", "-n", "-E", "42", s(f), "true").exit(), "unlocked");
            try (Procs.Child holder = Procs.start(Procs.pythonCmd("""
                    fd = os.open(sys.argv[1], os.O_RDONLY)
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    print("LOCKED", flush=True)
                    time.sleep(120)
                    """, s(f)))) {
                holder.awaitOutput("LOCKED", Duration.ofSeconds(30));
                assertErrno(Errno.EAGAIN, () -> Libc.flock(fd, Libc.LOCK_EX | Libc.LOCK_NB));
            }
        });
        int again = Libc.open(s(f), Libc.O_RDONLY, 0);
        try {
            long end = System.nanoTime() + 10_000_000_000L;
            while (true) { // the killed holder's lock goes when its last descriptor closes
                try {
                    Libc.flock(again, Libc.LOCK_EX | Libc.LOCK_NB);
                    break;
                } catch (dev.ringfuse.testkit.internal.ErrnoException e) {
                    if (System.nanoTime() > end) throw e;
                    Thread.sleep(20);
                }
            }
        } finally {
            Libc.close(again);
        }
    }
}
