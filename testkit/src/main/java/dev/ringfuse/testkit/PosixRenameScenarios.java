package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Stat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.HashSet;
import org.junit.jupiter.api.Test;

/** rename(2) and renameat2(2): replacing, RENAME_NOREPLACE, RENAME_EXCHANGE, the errors, the timestamps. */
public interface PosixRenameScenarios extends ScenarioContext {

    /** rename over an existing name replaces it atomically: readers see the old or the new file, never none. */
    @Test
    default void renameReplacesTheTargetAtomically() throws Exception {
        Path a = file(dir().resolve("a"), "A"), b = file(dir().resolve("b"), "B");
        long ino = Libc.stat(s(a)).ino();
        Libc.renameat2(s(a), s(b), 0);
        assertEquals("A", Files.readString(b));
        assertEquals(ino, Libc.stat(s(b)).ino());
        assertErrno(Errno.ENOENT, () -> Libc.stat(s(a)));
        assertEquals(List.of("b"), Libc.listDir(s(dir()), 4096));
        Libc.renameat2(s(b), s(b), 0);
        assertEquals("A", Files.readString(b));
        Path link = Files.createLink(dir().resolve("link"), b);
        Libc.renameat2(s(b), s(link), 0); // both names are one inode: nothing happens
        assertEquals(Set.of("b", "link"), new HashSet<>(Libc.listDir(s(dir()), 4096)));
        assertErrno(Errno.ENOENT, () -> Libc.renameat2(s(a), s(dir().resolve("c")), 0));
    }

    /** RENAME_NOREPLACE fails with EEXIST when the target exists and changes nothing. */
    @Test
    default void renameNoReplaceRefusesAnExistingTarget() throws Exception {
        Path a = file(dir().resolve("a"), "A"), b = file(dir().resolve("b"), "B");
        assertErrno(Errno.EEXIST, () -> Libc.renameat2(s(a), s(b), Libc.RENAME_NOREPLACE));
        assertEquals("A", Files.readString(a));
        assertEquals("B", Files.readString(b));
        Libc.renameat2(s(a), s(dir().resolve("c")), Libc.RENAME_NOREPLACE);
        assertEquals("A", Files.readString(dir().resolve("c")));
        assertErrno(Errno.ENOENT, () -> Libc.stat(s(a)));
    }

    /** RENAME_EXCHANGE swaps two names and their inodes, also a file with a directory (RENAME_EXCHANGE). */
    @Test
    default void renameExchangeSwapsTwoNames() throws Exception {
        requires(Feature.RENAME_EXCHANGE);
        Path a = file(dir().resolve("a"), "A"), b = file(dir().resolve("b"), "B");
        long inoA = Libc.stat(s(a)).ino(), inoB = Libc.stat(s(b)).ino();
        Libc.renameat2(s(a), s(b), Libc.RENAME_EXCHANGE);
        assertEquals("B", Files.readString(a));
        assertEquals("A", Files.readString(b));
        assertEquals(inoB, Libc.stat(s(a)).ino());
        assertEquals(inoA, Libc.stat(s(b)).ino());
        Path d = Files.createDirectory(dir().resolve("d"));
        file(d.resolve("inside"), "in d");
        Path other = Files.createDirectory(dir().resolve("other"));
        Libc.renameat2(s(a), s(d), Libc.RENAME_EXCHANGE); // a file and a directory
        assertEquals(Stat.S_IFDIR, Libc.stat(s(a)).type());
        assertEquals("in d", Files.readString(a.resolve("inside")));
        assertEquals("B", Files.readString(d));
        Libc.renameat2(s(b), s(other.resolve("x")), 0);
        Libc.renameat2(s(a), s(other.resolve("x")), Libc.RENAME_EXCHANGE); // across directories
        assertEquals(Libc.stat(s(other)).ino(), Libc.stat(s(other.resolve("x/.."))).ino());
        assertEquals("A", Files.readString(a));
        assertErrno(Errno.ENOENT, () -> Libc.renameat2(s(a), s(dir().resolve("missing")), Libc.RENAME_EXCHANGE));
        assertErrno(Errno.EINVAL, () -> Libc.renameat2(s(a), s(d), Libc.RENAME_EXCHANGE | Libc.RENAME_NOREPLACE));
    }

    /**
     * rename fails with exactly the errno POSIX names (a directory over a non-empty one or a file, a file over a
     * directory, a directory into itself), and a directory may replace an empty one.
     */
    @Test
    default void renameErrorsAreExact() throws Exception {
        Path d = Files.createDirectory(dir().resolve("d"));
        Path full = Files.createDirectory(dir().resolve("full"));
        file(full.resolve("f"), "x");
        Path empty = Files.createDirectory(dir().resolve("empty"));
        Path f = file(dir().resolve("f"), "f");
        assertErrno(Errno.ENOTEMPTY, () -> Libc.renameat2(s(d), s(full), 0));
        assertErrno(Errno.ENOTDIR, () -> Libc.renameat2(s(d), s(f), 0));
        assertErrno(Errno.EISDIR, () -> Libc.renameat2(s(f), s(d), 0));
        Files.createDirectory(d.resolve("child"));
        assertErrno(Errno.EINVAL, () -> Libc.renameat2(s(d), s(d.resolve("child/into")), 0));
        Libc.renameat2(s(d), s(empty), 0); // a directory may replace an empty one
        assertEquals(Stat.S_IFDIR, Libc.stat(s(empty.resolve("child"))).type());
        assertErrno(Errno.ENOENT, () -> Libc.stat(s(d)));
        assertEquals(4, Libc.stat(s(dir())).nlink(), ". + .. + full + empty");
    }

    /** rename moves the renamed entry's ctime and both parents' mtime and ctime. */
    @Test
    default void renameUpdatesCtimeAndBothParents() throws Exception {
        Path src = Files.createDirectory(dir().resolve("src"));
        Path dst = Files.createDirectory(dir().resolve("dst"));
        Path f = file(src.resolve("f"), "x");
        Stat before = Libc.stat(s(f)), srcBefore = Libc.stat(s(src)), dstBefore = Libc.stat(s(dst));
        tick();
        Libc.renameat2(s(f), s(dst.resolve("g")), 0);
        Stat after = Libc.stat(s(dst.resolve("g")));
        assertTrue(after.ctimeNs() > before.ctimeNs(), "rename changes the inode's ctime");
        assertEquals(before.mtimeNs(), after.mtimeNs(), "rename leaves the file's mtime");
        Stat srcAfter = Libc.stat(s(src)), dstAfter = Libc.stat(s(dst));
        assertTrue(srcAfter.mtimeNs() > srcBefore.mtimeNs() && srcAfter.ctimeNs() > srcBefore.ctimeNs(), "source dir");
        assertTrue(dstAfter.mtimeNs() > dstBefore.mtimeNs() && dstAfter.ctimeNs() > dstBefore.ctimeNs(), "target dir");
    }
}
