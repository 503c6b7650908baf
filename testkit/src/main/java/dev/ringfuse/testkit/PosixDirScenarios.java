package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Directories: link counts, errors, listing many entries (also while they change), deep trees. */
public interface PosixDirScenarios extends ScenarioContext {

    /** A directory's link count is 2 plus its subdirectories, through mkdir and rmdir, and its subdirectories' ".." is it. */
    @Test
    default void directoryLinkCountsFollowSubdirectories() throws Exception {
        Path d = Files.createDirectory(dir().resolve("d"));
        assertEquals(2, Libc.stat(s(d)).nlink());
        Files.createDirectory(d.resolve("a"));
        Files.createDirectory(d.resolve("b"));
        file(d.resolve("file"), "x");
        assertEquals(4, Libc.stat(s(d)).nlink());
        assertEquals(Libc.stat(s(d)).ino(), Libc.stat(s(d.resolve("a/.."))).ino());
        Libc.rmdir(s(d.resolve("a")));
        assertEquals(3, Libc.stat(s(d)).nlink());
        assertErrno(Errno.ENOENT, () -> Libc.stat(s(d.resolve("a"))));
    }

    /** Directory calls fail with exactly the errno POSIX names: ENOTEMPTY, ENOTDIR, EISDIR, EEXIST, ENOENT. */
    @Test
    default void directoryErrorsAreExact() throws Exception {
        Path d = Files.createDirectory(dir().resolve("d"));
        Path f = file(d.resolve("f"), "x");
        assertErrno(Errno.ENOTEMPTY, () -> Libc.rmdir(s(d)));
        assertErrno(Errno.ENOTDIR, () -> Libc.rmdir(s(f)));
        assertErrno(Errno.EISDIR, () -> Libc.unlink(s(d)));
        assertErrno(Errno.EEXIST, () -> Libc.mkdir(s(d), 0755));
        assertErrno(Errno.EEXIST, () -> Libc.mkdir(s(f), 0755));
        assertErrno(Errno.ENOTDIR, () -> Libc.mkdir(s(f.resolve("sub")), 0755));
        assertErrno(Errno.ENOTDIR, () -> Libc.open(s(f.resolve("x")), Libc.O_CREAT | Libc.O_RDWR, 0644));
        assertErrno(Errno.ENOENT, () -> Libc.mkdir(s(d.resolve("no/such")), 0755));
        assertErrno(Errno.ENOTDIR, () -> Libc.open(s(f), Libc.O_RDONLY | Libc.O_DIRECTORY, 0));
        assertErrno(Errno.EINVAL, () -> Libc.rmdir(s(d) + "/."));
    }

    /** A directory of 3000 entries lists every name once, with the right size for each. */
    @Test
    default void listingThousandsOfEntriesWithAttributes() throws Exception {
        int n = 3000;
        Map<String, Integer> sizes = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String name = "entry-" + i + "-" + "x".repeat(i % 40);
            sizes.put(name, i % 17);
            Files.write(dir().resolve(name), new byte[i % 17]);
        }
        List<String> listed = Libc.listDir(s(dir()), 4096);
        assertEquals(n, listed.size(), "each entry exactly once");
        assertEquals(sizes.keySet(), new HashSet<>(listed));
        // ls -l stats every entry right after listing it: the readdirplus path
        Procs.Result ls = Procs.run("ls", "-l", "--time-style=+", s(dir()));
        assertEquals(0, ls.exit(), ls.err());
        int seen = 0;
        for (String line : ls.out().split("\n")) {
            if (line.startsWith("total")) continue;
            String[] cols = line.trim().split("\\s+");
            String name = cols[cols.length - 1];
            assertEquals(sizes.get(name), Integer.valueOf(cols[4]), line);
            assertTrue(cols[0].startsWith("-rw-"), line);
            seen++;
        }
        assertEquals(n, seen);
        for (Map.Entry<String, Integer> e : sizes.entrySet()) {
            assertEquals((long) e.getValue(), Libc.lstat(s(dir().resolve(e.getKey()))).size(), e.getKey());
        }
    }

    /** Listing a directory while other entries come and go shows every untouched entry exactly once. */
    @Test
    default void listingWhileEntriesChangeShowsStableOnesExactlyOnce() throws Exception {
        int stable = 2000;
        for (int i = 0; i < stable; i++) Files.createFile(dir().resolve("stable-" + i));
        AtomicBoolean stop = new AtomicBoolean();
        Throwable[] failure = new Throwable[1];
        Thread churn = Thread.ofPlatform().start(() -> {
            try {
                for (int round = 0; !stop.get(); round++) {
                    for (int i = 0; i < 50; i++) Files.createFile(dir().resolve("churn-" + round + "-" + i));
                    for (int i = 0; i < 50; i++) Files.delete(dir().resolve("churn-" + round + "-" + i));
                }
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        try {
            for (int pass = 0; pass < 8; pass++) {
                List<String> names = Libc.listDir(s(dir()), 2048);
                Set<String> unique = new HashSet<>(names);
                assertEquals(names.size(), unique.size(), "a name was listed twice in pass " + pass);
                for (int i = 0; i < stable; i++) assertTrue(unique.contains("stable-" + i), "stable-" + i + " missing");
            }
        } finally {
            stop.set(true);
            churn.join();
        }
        if (failure[0] != null) throw new AssertionError(failure[0]);
        assertEquals(stable, Libc.listDir(s(dir()), 65536).size());
    }

    /** A tree one hundred directories deep can be made, walked and removed. */
    @Test
    default void deepTreeOfOneHundredLevels() throws Exception {
        Path p = dir();
        List<Path> levels = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            p = p.resolve("level" + i);
            Libc.mkdir(s(p), 0755);
            levels.add(p);
        }
        Path leaf = file(p.resolve("leaf"), "bottom");
        assertEquals("bottom", Files.readString(leaf));
        try (var walk = Files.walk(dir())) {
            assertEquals(102, walk.count());
        }
        Files.delete(leaf);
        for (int i = levels.size() - 1; i >= 0; i--) Libc.rmdir(s(levels.get(i)));
        assertEquals(List.of(), Libc.listDir(s(dir()), 4096));
    }

    /** Renaming a directory into another moves everything below it, and both parents' link counts follow. */
    @Test
    default void renamingADirectoryMovesItsSubtree() throws Exception {
        Path d1 = Files.createDirectory(dir().resolve("d1"));
        Path d2 = Files.createDirectory(dir().resolve("d2"));
        Files.createDirectories(d1.resolve("sub/inner"));
        file(d1.resolve("sub/inner/f"), "deep");
        Files.move(d1.resolve("sub"), d2.resolve("moved"));
        assertEquals("deep", Files.readString(d2.resolve("moved/inner/f")));
        assertEquals(2, Libc.stat(s(d1)).nlink());
        assertEquals(3, Libc.stat(s(d2)).nlink());
        assertEquals(Libc.stat(s(d2)).ino(), Libc.stat(s(d2.resolve("moved/.."))).ino());
        assertErrno(Errno.ENOENT, () -> Libc.stat(s(d1.resolve("sub"))));
    }
}
