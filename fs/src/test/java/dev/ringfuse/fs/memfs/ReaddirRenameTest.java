package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * issue 17.3: readdir of a directory of 15,000 files while another process renames entries in it. Every pass
 * (the walker rewinds the same open directory and reads again) must list each name at most once and never
 * more names than the directory holds. The same script runs on tmpfs (/dev/shm) as the reference. Also the
 * xfstests generic/736 shape: one process renaming every entry it reads must end after exactly N entries.
 */
class ReaddirRenameTest {
    private static final int FILES = 15_000;

    /** argv: dir, files, seconds. Prints "passes N maxcount M" or "FAIL ..." and exits 1. */
    private static final String WALK_WHILE_RENAMING = """
            import os, sys, time, random
            d, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
            for i in range(n):
                open(os.path.join(d, 'f%d' % i), 'w').close()
            pid = os.fork()
            if pid == 0:
                # the renamer: toggles random entries between f<i> and g<i> until killed
                r = random.Random(1)
                names = ['f%d' % i for i in range(n)]
                while True:
                    i = r.randrange(n)
                    new = ('g' if names[i][0] == 'f' else 'f') + names[i][1:]
                    os.rename(os.path.join(d, names[i]), os.path.join(d, new))
                    names[i] = new
            fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
            end = time.time() + secs
            passes = maxcount = 0
            bad = None
            while time.time() < end and bad is None:
                seen = set()
                count = 0
                with os.scandir(fd) as it:  # same open file each pass; scandir rewinds it at close
                    for e in it:
                        count += 1
                        if e.name in seen:
                            bad = 'name %s twice in pass %d' % (e.name, passes)
                        seen.add(e.name)
                if count > n:
                    bad = 'pass %d listed %d entries for %d files' % (passes, count, n)
                passes += 1
                maxcount = max(maxcount, count)
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            left = len(os.listdir(d))
            if left != n:
                bad = bad or 'directory holds %d' % left
            print('FAIL ' + bad if bad else 'passes %d maxcount %d' % (passes, maxcount), flush=True)
            sys.exit(1 if bad else 0)
            """;

    /** generic/736: rename each entry as it is read; the listing must end after exactly n entries. */
    private static final String RENAME_EACH_READ = """
            import os, sys
            d, n = sys.argv[1], int(sys.argv[2])
            for i in range(n):
                open(os.path.join(d, 'e%d' % i), 'w').close()
            count = 0
            with os.scandir(d) as it:
                for e in it:
                    count += 1
                    os.rename(os.path.join(d, e.name), os.path.join(d, e.name + '_r'))
                    if count > 2 * n:
                        break
            print('count %d' % count, flush=True)
            sys.exit(0 if count == n else 1)
            """;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void readdirWhileRenamingOnMemfs(TransportKind transport) throws Exception {
        Probes.assumeTransport(transport);
        try (Mount m = Fuse.mount(tmp, new MemFs(), MountOptions.defaults().withTransport(transport))) {
            Path d = Files.createDirectory(m.mountpoint().resolve("big"));
            String out = python(WALK_WHILE_RENAMING, d, Integer.toString(FILES), "10");
            System.out.println("memfs over " + transport + ": " + out);
            Path e = Files.createDirectory(m.mountpoint().resolve("each"));
            assertEquals("count 2000", python(RENAME_EACH_READ, e, "2000"));
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void tmpfsReference() throws Exception {
        Path d = Probes.tmpfsDir("readdir-rename");
        try {
            Path big = Files.createDirectory(d.resolve("big"));
            System.out.println("tmpfs: " + python(WALK_WHILE_RENAMING, big, Integer.toString(FILES), "5"));
            assertEquals("count 2000", python(RENAME_EACH_READ, Files.createDirectory(d.resolve("each")), "2000"));
        } finally {
            Probes.remove(d);
        }
    }

    private static String python(String script, Path dir, String... args) throws Exception {
        return Probes.run("python3", script, dir, 100, args);
    }
}
