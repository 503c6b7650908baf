package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One read-write server per volume image and per passthrough source; read-only servers share. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ServerClaimCliTest {
    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void unmountLeftovers() throws Exception {
        Cli.unmountAllUnder(dir);
    }

    /**
     * A mount command on /dev/fuse: the claim does not depend on the transport, and io_uring registration
     * can time out on a loaded machine.
     */
    private static java.util.List<String> dev(String... args) {
        java.util.List<String> l = new java.util.ArrayList<>(Cli.cmd(args));
        l.add("--transport=dev");
        return l;
    }

    @Test
    void aSecondReadWriteServerOfAnImageIsRefusedNamingTheHolder() throws Exception {
        Path img = dir.resolve("disk.img"), a = Files.createDirectory(dir.resolve("a")), b = Files.createDirectory(dir.resolve("b"));
        try (Procs.Child first = Cli.serve(dev("mount", "volume", img.toString(), a.toString(), "--create", "--size", "16M"))) {
            Procs.Result second = Procs.run(java.time.Duration.ofSeconds(60), dev("mount", "volume", img.toString(), b.toString()));
            assertNotEquals(0, second.exit());
            String err = second.err().strip();
            assertEquals(1, err.lines().count(), "one line: " + err);
            assertTrue(err.contains("volume image " + img + " is already in use by pid " + first.process().pid()), err);
            assertTrue(err.contains("mount volume " + img + " " + a), "names the holder's command: " + err);
            assertNull(Cli.mountLine(b), "nothing mounted");
            // a real flock: other tools see it too
            assertNotEquals(0, Procs.run("flock", "-n", "-s", img.toString(), "true").exit());
            Procs.Result ro = Procs.run(java.time.Duration.ofSeconds(60), dev("mount", "volume", img.toString(), b.toString(), "-o", "ro"));
            assertTrue(ro.err().contains("a read-write server holds it"), ro.err());
            Cli.unmount(a, first);
        }
        assertEquals(0, Procs.run("flock", "-n", img.toString(), "true").exit(), "released when the server ends");
    }

    @Test
    void readOnlyServersShareAnImageButNotWithAWriter() throws Exception {
        Path img = dir.resolve("disk.img"), a = Files.createDirectory(dir.resolve("a")), b = Files.createDirectory(dir.resolve("b"));
        Files.write(img, new byte[1 << 20]);
        try (Procs.Child one = Cli.serve(dev("mount", "volume", img.toString(), a.toString(), "-o", "ro"));
             Procs.Child two = Cli.serve(dev("mount", "volume", img.toString(), b.toString(), "-o", "ro"))) {
            assertEquals(1 << 20, Files.readAllBytes(a.resolve("volume")).length);
            assertEquals(1 << 20, Files.readAllBytes(b.resolve("volume")).length);
            Path c = Files.createDirectory(dir.resolve("c"));
            Procs.Result rw = Procs.run(java.time.Duration.ofSeconds(60), dev("mount", "volume", img.toString(), c.toString()));
            assertTrue(rw.err().contains("is already in use by pid"), rw.err());
            assertTrue(rw.err().contains("read-only servers, -o ro, may share it"), rw.err());
            Cli.unmount(a, one);
            Cli.unmount(b, two);
        }
    }

    @Test
    void aPassthroughSourceHasOneReadWriteServer() throws Exception {
        Path src = Files.createDirectory(dir.resolve("src")), a = Files.createDirectory(dir.resolve("a")),
                b = Files.createDirectory(dir.resolve("b"));
        try (Procs.Child first = Cli.serve(dev("mount", "passthrough", src.toString(), a.toString()))) {
            Procs.Result second = Procs.run(java.time.Duration.ofSeconds(60), dev("mount", "passthrough", src.toString(), b.toString()));
            assertNotEquals(0, second.exit());
            assertTrue(second.err().contains("passthrough source " + src + " is already in use by pid "
                    + first.process().pid()), second.err());
            assertNull(Cli.mountLine(b));
            Cli.unmount(a, first);
        }
        try (Procs.Child again = Cli.serve(dev("mount", "passthrough", src.toString(), b.toString()))) {
            assertNotNull(Cli.mountLine(b), "free again after the first server ended");
            Cli.unmount(b, again);
        }
    }
}
