package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * ringfuse as mount(8)'s helper: the real mount(8) with -t fuse.ringfuse and with fstab lines (mount -T),
 * under an empty environment; the server runs detached and ends on umount. The helper is installed in
 * /sbin for the class and removed (or the one found there restored) afterwards.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MountHelperTest {
    private static final Path HELPER = Path.of("/sbin", InstallHelperCommand.NAME);
    private static String saved;

    @TempDir
    Path dir;
    private final List<Path> mounts = new ArrayList<>();

    @BeforeAll
    static void install() throws IOException {
        saved = Files.exists(HELPER) ? Files.readString(HELPER) : null;
        List<String> java = Cli.cmd();
        List<String> args = new ArrayList<>(List.of("--exec"));
        args.addAll(java);
        assertEquals(0, new CommandLine(new InstallHelperCommand()).execute(args.toArray(String[]::new)));
    }

    @AfterAll
    static void uninstall() throws IOException {
        if (saved == null) {
            assertEquals(0, new CommandLine(new InstallHelperCommand()).execute("--uninstall"));
        } else {
            Files.writeString(HELPER, saved);
        }
    }

    @AfterEach
    void unmountLeftovers() throws Exception {
        for (Path m : mounts) if (Cli.mountLine(m) != null) Procs.run("umount", "-l", m.toString());
    }

    private Path mnt(String name) throws IOException {
        Path m = Files.createDirectory(dir.resolve(name));
        mounts.add(m);
        return m;
    }

    /** mount(8) with no environment at all, as init systems and `env -i` give. */
    private static Procs.Result mount(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("env", "-i", "/usr/bin/mount"));
        cmd.addAll(List.of(args));
        return Procs.run(Duration.ofSeconds(150), cmd);
    }

    @Test
    void mountDashTReturnsWithTheMountLiveAndTheServerDetached() throws Exception {
        Path m = mnt("m");
        Procs.Result r = mount("-t", "fuse.ringfuse", "memfs", m.toString(), "-o", "size=32m,mode=0700");
        assertEquals(0, r.exit(), r.err());
        String line = Cli.mountLine(m);
        assertTrue(line.startsWith("memfs " + m + " fuse.ringfuse rw,nosuid,nodev"), line);
        Files.writeString(m.resolve("f"), "served");                 // live as soon as mount(8) returned
        assertEquals("served", Files.readString(m.resolve("f")));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(m)));
        ProcessHandle server = server(m);
        long pid = server.pid();
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertEquals(Long.toString(pid), f[3], "its own session (setsid): " + stat);
        assertEquals("0", f[4], "no controlling terminal");
        assertEquals("/dev/null", Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "fd", "0")).toString());
        assertEquals(0, Procs.run("umount", m.toString()).exit());
        assertTrue(server.onExit().get(30, TimeUnit.SECONDS) != null && !server.isAlive(), "umount ended the server");
    }

    @Test
    void fstabLinesForPassthroughAndVolumeWithTheTypeTheUserChose() throws Exception {
        Path src = Files.createDirectory(dir.resolve("src"));
        Files.writeString(src.resolve("hello"), "from the source");
        Path p = mnt("p"), v = mnt("v"), img = dir.resolve("disk.img");
        Path fstab = dir.resolve("fstab");
        Files.writeString(fstab, "# test fstab\n"
                + "passthrough:" + src + " " + p + " fuse.ringfuse subtype=,noauto,x-systemd.automount 0 0\n"
                + "volume:" + img + " " + v + " fuse.ringfuse create,size=16m,nofail 0 0\n");
        assertEquals(0, mount("-T", fstab.toString(), p.toString()).exit());
        assertEquals(0, mount("-T", fstab.toString(), v.toString()).exit());
        assertTrue(Cli.mountLine(p).startsWith("passthrough:" + src + " " + p + " fuse rw,"), "plain fuse on request: " + Cli.mountLine(p));
        assertTrue(Cli.mountLine(v).startsWith("volume:" + img + " " + v + " fuse.ringfuse rw,"), Cli.mountLine(v));
        assertEquals("from the source", Files.readString(p.resolve("hello")));
        byte[] data = "a block of the disk".getBytes(StandardCharsets.UTF_8);
        Files.write(v.resolve("volume"), data, java.nio.file.StandardOpenOption.WRITE);
        assertEquals(16 << 20, Files.size(v.resolve("volume")));
        ProcessHandle ps = server(p), vs = server(v);
        assertEquals(0, Procs.run("umount", p.toString()).exit());
        assertEquals(0, Procs.run("umount", v.toString()).exit());
        ps.onExit().get(30, TimeUnit.SECONDS);
        vs.onExit().get(30, TimeUnit.SECONDS);
        byte[] back = new byte[data.length];
        try (var in = Files.newInputStream(img)) {
            assertEquals(data.length, in.read(back));
        }
        assertEquals(new String(data, StandardCharsets.UTF_8), new String(back, StandardCharsets.UTF_8), "written through to the image");
    }

    @Test
    void aBadOptionFailsTheMountWithItsNameAndStartsNothing() throws Exception {
        Path m = mnt("bad");
        Procs.Result r = mount("-t", "fuse.ringfuse", "memfs", m.toString(), "-o", "size=1m,colour=blue");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("unknown mount option \"colour=blue\""), r.err());
        assertNull(Cli.mountLine(m));
        r = mount("-t", "fuse.ringfuse", "volume", m.toString());
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("volume needs a path: volume:/path"), r.err());
    }

    @Test
    void theScriptRunsWithAnEmptyEnvironment() throws Exception {
        // `ringfuse bench` with no benchmark finds the JDK and stops with its usage, without building
        Path script = Path.of(System.getProperty("user.dir")).getParent().resolve("ringfuse");
        Procs.Result r = Procs.run(Duration.ofSeconds(60), List.of("env", "-i", script.toString(), "bench"));
        assertFalse(r.err().contains("unbound variable"), r.err());
        assertTrue(r.err().contains("usage: ringfuse bench"), r.err());
    }

    @Test
    void aUserGetsNoMoreThanFusermount3Gives() throws Exception {
        Path m = mnt("user");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Procs.run("chown", "65534:65534", m.toString());
        Procs.Result viaMount = Procs.runAs(65534, 65534, "/usr/bin/mount", "-t", "fuse.ringfuse", "memfs", m.toString());
        assertNotEquals(0, viaMount.exit(), "mount(8) does not run helpers for users without an fstab user line");
        assertNull(Cli.mountLine(m));
        // the helper itself is no setuid program: run by a user it mounts with fusermount3 and gets what that gives
        List<String> helper = Cli.cmdForOthers(dir, "mount-helper", "memfs", m.toString(), "-o", "dev,suid,log=none");
        List<String> withOther = Cli.cmdForOthers(dir, "mount-helper", "memfs", m.toString(), "-o", "allow_other,log=none");
        Path fuse = Path.of("/dev/fuse");
        var before = Files.getPosixFilePermissions(fuse);
        try {
            Files.setPosixFilePermissions(fuse, PosixFilePermissions.fromString("rw-rw-rw-"));
            Procs.Result r = Procs.run(Duration.ofSeconds(150), Procs.asUser(65534, 65534, helper));
            assertEquals(0, r.exit(), r.err());
            String line = Cli.mountLine(m);
            assertTrue(line.contains("nosuid") && line.contains("nodev") && line.contains("user_id=65534"), line);
            ProcessHandle server = server(m);
            assertEquals(0, Procs.runAs(65534, 65534, "fusermount3", "-u", m.toString()).exit());
            server.onExit().get(30, TimeUnit.SECONDS);
            boolean userAllowOther = Files.readAllLines(Path.of("/etc/fuse.conf")).stream().anyMatch(l -> l.strip().equals("user_allow_other"));
            if (!userAllowOther) {
                r = Procs.run(Duration.ofSeconds(150), Procs.asUser(65534, 65534, withOther));
                assertNotEquals(0, r.exit());
                assertTrue(r.err().contains("allow_other"), r.err());
                assertNull(Cli.mountLine(m));
            }
        } finally {
            Files.setPosixFilePermissions(fuse, before);
        }
    }

    /** The detached server of {@code mnt}: the process whose command line mounts it. */
    private static ProcessHandle server(Path mnt) throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(q -> q.getFileName().toString().matches("\\d+")).toList()) {
                String cmd;
                try {
                    cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                } catch (IOException gone) {
                    continue;
                }
                if (cmd.contains(Main.class.getName() + "\0mount\0") && cmd.contains("\0" + mnt + "\0")) {
                    return ProcessHandle.of(Long.parseLong(p.getFileName().toString())).orElseThrow();
                }
            }
        }
        throw new AssertionError("no server process for " + mnt);
    }
}
