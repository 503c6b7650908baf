package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountMethod;
import dev.ringfuse.MountOptions;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** `ringfuse mount` options as users know them from tmpfs and libfuse, and its messages for bad input. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MountOptionsCliTest {
    @TempDir
    Path dir;

    @org.junit.jupiter.api.AfterEach
    void unmountLeftovers() throws Exception {
        Cli.unmountAllUnder(dir);
    }

    private Path mnt() throws Exception {
        return Files.createDirectories(dir.resolve("mnt"));
    }

    @Test
    void aSizeThatIsNotOneSaysWhatASizeLooksLike() throws Exception {
        for (String bad : List.of("1Z", "abc", "-5", "99999999999999999999")) {
            Path img = dir.resolve("v" + bad.hashCode() + ".img");
            Procs.Result r = Cli.run("mount", "volume", img.toString(), mnt().toString(), "--create", "--size", bad);
            assertNotEquals(0, r.exit());
            assertTrue(r.err().contains("size \"" + bad + "\" is"), r.err());
            assertTrue(r.err().contains("e.g. 4096, 512M, 1G") || r.err().contains("too large"), r.err());
            assertFalse(r.err().contains("For input string"), r.err());
            assertFalse(Files.exists(img), "nothing created");
        }
        Procs.Result r = Cli.run("mount", "memfs", mnt().toString(), "-o", "size=12q");
        assertTrue(r.err().contains("size \"12q\" is not a size"), r.err());
        assertNull(Cli.mountLine(mnt()));
    }

    @Test
    void anUnknownOptionIsRefusedWithItsName() throws Exception {
        for (String fs : List.of("memfs", "passthrough")) {
            List<String> args = fs.equals("memfs") ? List.of("mount", "memfs", mnt().toString(), "-o", "size=1m,frobnicate")
                    : List.of("mount", "passthrough", dir.toString(), mnt().toString(), "-o", "ro,frobnicate=2");
            Procs.Result r = Cli.run(args.toArray(String[]::new));
            assertNotEquals(0, r.exit());
            assertTrue(r.err().contains("unknown mount option \"frobnicate"), r.err());
            assertNull(Cli.mountLine(mnt()));
        }
        Procs.Result r = Cli.run("mount", "memfs", mnt().toString(), "-o", "mode=99");
        assertTrue(r.err().contains("mode=99: expected an octal mode"), r.err());
        r = Cli.run("mount", "memfs", mnt().toString(), "-o", "writeback"); // the pool's option only
        assertTrue(r.err().contains("unknown mount option \"writeback"), r.err());
    }

    @Test
    void poolCacheTimeoutsAreCheckedBeforeThePoolIsOpened() throws Exception {
        // refused while the options are sorted: the pool (which does not exist) is never looked up
        Procs.Result r = Cli.run("mount", "pool", "nosuchpool/ds", mnt().toString(), "-o", "entry_timeout=soon");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("entry_timeout takes seconds"), r.err());
        r = Cli.run("mount", "pool", "nosuchpool/ds", mnt().toString(), "-o", "attr_timeout=-1");
        assertTrue(r.err().contains("attr_timeout takes 0 to 1e9 seconds"), r.err());
        r = Cli.run("mount", "memfs", mnt().toString(), "-o", "entry_timeout=soon"); // memfs takes them too
        assertTrue(r.err().contains("entry_timeout takes seconds"), r.err());
        r = Cli.run("mount", "memfs", mnt().toString(), "-o", "attr_timeout=1e10");
        assertTrue(r.err().contains("attr_timeout takes 0 to 1e9 seconds"), r.err());
        assertNull(Cli.mountLine(mnt()));
    }

    @Test
    void memfsCacheTimeoutsDecideWhatAStatCosts() throws Exception {
        // an hour by default: a known file's stat is answered by the kernel; attr_timeout=0 asks memfs each time
        for (String timeout : new String[] {"3600", "0"}) {
            Path mnt = mnt();
            try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString(), "--transport", "dev",
                    "-o", "entry_timeout=" + timeout + ",attr_timeout=" + timeout))) {
                Path f = mnt.resolve("f");
                Files.writeString(f, "x");
                Files.readAttributes(f, "unix:mode"); // settles the entry and the attributes
                long before = Cli.requests(mnt, "GETATTR");
                for (int i = 0; i < 20; i++) Files.readAttributes(f, "unix:mode");
                long asked = Cli.requests(mnt, "GETATTR") - before;
                if (timeout.equals("0")) assertTrue(asked >= 20, "attr_timeout=0: " + asked + " GETATTRs for 20 stats");
                else assertEquals(0, asked, "attr_timeout=3600: the kernel answered");
                Cli.unmount(mnt, c);
            }
        }
    }

    @Test
    void aPoolReadaheadBelowAPageIsRefused() throws Exception {
        // read_ahead_kb keeps whole pages: 512 bytes would be 0 KiB, readahead off rather than small
        Procs.Result r = Cli.run("mount", "pool", "nosuchpool/ds", mnt().toString(), "-o", "readahead=512");
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("readahead must be 0 or from 4K to 64M"), r.err());
        assertNull(Cli.mountLine(mnt()));
    }

    @Test
    void tooManyThreadsAreCappedWithAMessage() throws Exception {
        Path mnt = mnt();
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString(), "--transport", "dev", "--threads", "100000"))) {
            Files.writeString(mnt.resolve("f"), "x");
            Cli.unmount(mnt, c);
            assertTrue(Files.readString(c.err().toPath()).contains("--threads 100000 capped at 256"));
        }
        Procs.Result r = Cli.run("mount", "memfs", mnt.toString(), "-o", "threads=100000");
        assertTrue(r.err().contains("threads must be 1..256, not 100000"), r.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "uring"})
    void memfsTakesTmpfsSizeInodesModeAndOwner(String transport) throws Exception {
        Path mnt = mnt();
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString(), "--transport", transport,
                "-o", "size=8m,nr_inodes=64,mode=0750,uid=1000,gid=1001"))) {
            Map<String, String> o = Procs.python("""
                    import os
                    d = sys.argv[1]; s = os.statvfs(d); st = os.stat(d)
                    print("bytes", s.f_blocks * s.f_frsize); print("files", s.f_files)
                    print("mode", oct(st.st_mode & 0o7777)); print("owner", st.st_uid, st.st_gid)
                    def fill():
                        with open(os.path.join(d, "big"), "wb") as f:
                            for _ in range(9): f.write(b"x" * (1 << 20))
                    t("fill", fill)
                    os.unlink(os.path.join(d, "big"))
                    n = 0
                    try:
                        while n < 1000:
                            open(os.path.join(d, "f%d" % n), "w").close(); n += 1
                    except OSError as e:
                        print("created", n, errno.errorcode[e.errno])
                    """, mnt.toString()).outcomes();
            assertEquals(String.valueOf(8 << 20), o.get("bytes"), o.toString());
            assertEquals("64", o.get("files"), o.toString());
            assertEquals("0o750", o.get("mode"));
            assertEquals("1000 1001", o.get("owner"));
            assertEquals("ENOSPC", o.get("fill"), "a write past size= fails with ENOSPC");
            assertEquals("63 ENOSPC", o.get("created"), "nr_inodes counts the root, as tmpfs does");
            Cli.unmount(mnt, c);
        }
    }

    @Test
    void sizeInPercentIsOfRam() throws Exception {
        Path mnt = mnt();
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString(), "-o", "size=25%"))) {
            Procs.Result r = Procs.python("import os; s = os.statvfs(sys.argv[1]); print(s.f_blocks * s.f_frsize)", mnt.toString());
            long want = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).findFirst().orElseThrow() / 4;
            assertTrue(Math.abs(Long.parseLong(r.out().trim()) - want) <= 4096, r.out() + " vs " + want);
            Cli.unmount(mnt, c);
        }
    }

    @Test
    void devSuidRoFsnameAndSubtypeForRoot() throws Exception {
        Path mnt = mnt();
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString()))) {
            String line = Cli.mountLine(mnt);
            assertTrue(line.startsWith("memfs " + mnt + " fuse.memfs "), line);
            assertTrue(line.contains("nosuid") && line.contains("nodev"), "nodev,nosuid by default: " + line);
            Cli.unmount(mnt, c);
        }
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString(), "-o", "dev,suid,fsname=mine,subtype=kind"))) {
            String line = Cli.mountLine(mnt);
            assertTrue(line.startsWith("mine " + mnt + " fuse.kind "), line);
            assertFalse(line.contains("nosuid") || line.contains("nodev"), "root may ask for dev,suid: " + line);
            Cli.unmount(mnt, c);
        }
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString(), "-o", "ro,subtype="))) {
            String line = Cli.mountLine(mnt);
            assertTrue(line.contains(" " + mnt + " fuse ro,"), "plain fuse, read-only: " + line);
            Map<String, String> o = Procs.python("t('write', lambda: open(sys.argv[1] + '/f', 'w'))", mnt.toString()).outcomes();
            assertEquals("EROFS", o.get("write"));
            Cli.unmount(mnt, c);
        }
    }

    @Test
    void aUserGetsNeitherDevNorSuid() throws Exception {
        Path fuse = Path.of("/dev/fuse");
        var before = Files.getPosixFilePermissions(fuse);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path mnt = mnt();
        List<String> cmd = Cli.cmdForOthers(dir, "mount", "memfs", mnt.toString(), "-o", "dev,suid");
        Procs.run("chown", "65534:65534", mnt.toString());
        Files.setPosixFilePermissions(fuse, PosixFilePermissions.fromString("rw-rw-rw-"));
        try (Procs.Child c = Cli.serve(Procs.asUser(65534, 65534, cmd))) {
            Files.setPosixFilePermissions(fuse, before);
            String line = Cli.mountLine(mnt);
            assertTrue(line.contains("nosuid") && line.contains("nodev"), line);
            String err = Files.readString(c.err().toPath());
            assertTrue(err.contains("option dev ignored: only root may mount with dev or suid"), err);
            assertTrue(err.contains("option suid ignored"), err);
            Cli.unmount(mnt, c);
        } finally {
            Files.setPosixFilePermissions(fuse, before);
        }
    }

    @Test
    void aNonEmptyMountPointIsMountedOverWithANote() throws Exception {
        Path mnt = mnt();
        Files.writeString(mnt.resolve("underneath"), "kept");
        try (Procs.Child c = Cli.serve(Cli.cmd("mount", "memfs", mnt.toString()))) {
            assertFalse(Files.exists(mnt.resolve("underneath")), "hidden while mounted");
            Cli.unmount(mnt, c);
            assertTrue(Files.readString(c.err().toPath()).contains("was not empty; its 1 entries are hidden until the unmount"));
        }
        assertEquals("kept", Files.readString(mnt.resolve("underneath")));
        // fusermount3 (libfuse 3) mounts over a non-empty directory too: the same rule both ways
        try (Mount m = Fuse.mount(mnt, new MemFs(), MountOptions.defaults().withMethod(MountMethod.FUSERMOUNT))) {
            assertNotNull(Cli.mountLine(mnt));
            assertFalse(Files.exists(mnt.resolve("underneath")));
        }
        assertEquals("kept", Files.readString(mnt.resolve("underneath")));
    }
}
