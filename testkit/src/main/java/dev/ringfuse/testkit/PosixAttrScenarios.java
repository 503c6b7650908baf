package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.nowNs;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Stat;
import dev.ringfuse.testkit.internal.StatFs;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;

/** Permission bits, timestamps (utimens, and what write, truncate, chmod, create and unlink change), statfs. */
public interface PosixAttrScenarios extends ScenarioContext {
    long PAST_A = 1_000_000_000L, PAST_M = 1_200_000_000L;

    /** Sets atime and mtime of {@code p} far in the past so that any update is visible. */
    private void age(Path p) throws Exception {
        Libc.utimensat(s(p), PAST_A, 111, PAST_M, 222, 0);
    }

    /** chmod sets exactly the bits asked, set-ID and sticky bits included, on files and directories. */
    @Test
    default void chmodSetsExactlyTheBitsAsked() throws Exception {
        Path f = file(dir().resolve("f"), "x");
        Path d = Files.createDirectory(dir().resolve("d"));
        for (int mode : new int[] {0, 0777, 0644, 0400, 04755, 02750, 01777, 07777, 0111}) {
            Libc.chmod(s(f), mode);
            assertEquals(Stat.S_IFREG | mode, Libc.stat(s(f)).mode(), Integer.toOctalString(mode));
            Libc.chmod(s(d), mode);
            assertEquals(Stat.S_IFDIR | mode, Libc.stat(s(d)).mode(), Integer.toOctalString(mode));
        }
        Libc.chmod(s(f), 0100644); // type bits in the argument are ignored
        assertEquals(Stat.S_IFREG | 0644, Libc.stat(s(f)).mode());
    }

    /** utimensat stores nanoseconds exactly, honours UTIME_OMIT and UTIME_NOW, takes times before 1970, and sets a symlink's own times. */
    @Test
    default void utimensSetsExactNanoseconds() throws Exception {
        Path f = file(dir().resolve("f"), "x");
        Libc.utimensat(s(f), 1_000_000_000L, 123_456_789, 1_500_000_000L, 987_654_321, 0);
        Stat st = Libc.stat(s(f));
        assertEquals(1_000_000_000_123_456_789L, st.atimeNs());
        assertEquals(1_500_000_000_987_654_321L, st.mtimeNs());
        Libc.utimensat(s(f), 0, Libc.UTIME_OMIT, 1_600_000_000L, 5, 0);
        st = Libc.stat(s(f));
        assertEquals(1_000_000_000_123_456_789L, st.atimeNs(), "UTIME_OMIT keeps atime");
        assertEquals(1_600_000_000_000_000_005L, st.mtimeNs());
        long before = nowNs();
        Libc.utimensat(s(f), 0, Libc.UTIME_NOW, 0, Libc.UTIME_OMIT, 0);
        st = Libc.stat(s(f));
        assertTrue(Math.abs(st.atimeNs() - before) < 5_000_000_000L, "UTIME_NOW sets atime to now");
        assertEquals(1_600_000_000_000_000_005L, st.mtimeNs());
        Libc.utimensat(s(f), -1, 0, 0, 0, 0); // before the epoch
        assertEquals(-1_000_000_000L, Libc.stat(s(f)).atimeNs());
        assertEquals(0, Libc.stat(s(f)).mtimeNs());
        Path link = Files.createSymbolicLink(dir().resolve("link"), f);
        Libc.utimensat(s(link), 42, 0, 43, 0, Libc.AT_SYMLINK_NOFOLLOW);
        assertEquals(43_000_000_000L, Libc.lstat(s(link)).mtimeNs());
        assertEquals(0, Libc.stat(s(f)).mtimeNs(), "the target is untouched");
    }

    /** write and truncate move mtime and ctime forward and leave atime. */
    @Test
    default void writeAndTruncateUpdateMtimeAndCtime() throws Exception {
        Path f = file(dir().resolve("f"), "0123456789");
        age(f);
        long ctime = Libc.stat(s(f)).ctimeNs();
        tick();
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("ab".getBytes()), 3);
        }
        Stat st = Libc.stat(s(f));
        assertTrue(st.mtimeNs() > PAST_M * 1_000_000_000L, "write updates mtime");
        assertTrue(st.ctimeNs() > ctime, "write updates ctime");
        assertEquals(PAST_A * 1_000_000_000L + 111, st.atimeNs(), "write leaves atime");
        age(f);
        ctime = Libc.stat(s(f)).ctimeNs();
        tick();
        Libc.truncate(s(f), 4);
        st = Libc.stat(s(f));
        assertTrue(st.mtimeNs() > PAST_M * 1_000_000_000L, "truncate updates mtime");
        assertTrue(st.ctimeNs() > ctime, "truncate updates ctime");
    }

    /** chmod and chown move ctime only, not mtime or atime. */
    @Test
    default void chmodAndChownChangeCtimeOnly() throws Exception {
        Path f = file(dir().resolve("f"), "x");
        age(f);
        long ctime = Libc.stat(s(f)).ctimeNs();
        tick();
        Libc.chmod(s(f), 0600);
        Stat st = Libc.stat(s(f));
        assertTrue(st.ctimeNs() > ctime, "chmod updates ctime");
        assertEquals(PAST_M * 1_000_000_000L + 222, st.mtimeNs(), "chmod leaves mtime");
        assertEquals(PAST_A * 1_000_000_000L + 111, st.atimeNs(), "chmod leaves atime");
        tick();
        Libc.lchown(s(f), -1, -1); // a no-op chown still counts as a change
        assertTrue(Libc.stat(s(f)).ctimeNs() > st.ctimeNs(), "chown updates ctime");
        assertEquals(PAST_M * 1_000_000_000L + 222, Libc.stat(s(f)).mtimeNs());
    }

    /** Creating and removing entries (create, mkdir, symlink, unlink, rmdir) moves the parent directory's mtime and ctime. */
    @Test
    default void createAndUnlinkUpdateTheParentDirectory() throws Exception {
        Path d = Files.createDirectory(dir().resolve("d"));
        String[] steps = {"create", "mkdir", "symlink", "unlink", "rmdir"};
        for (String step : steps) {
            age(d);
            long ctime = Libc.stat(s(d)).ctimeNs();
            tick();
            switch (step) {
                case "create" -> Files.createFile(d.resolve("f"));
                case "mkdir" -> Files.createDirectory(d.resolve("sub"));
                case "symlink" -> Files.createSymbolicLink(d.resolve("l"), Path.of("f"));
                case "unlink" -> Files.delete(d.resolve("f"));
                default -> Files.delete(d.resolve("sub"));
            }
            Stat st = Libc.stat(s(d));
            assertTrue(st.mtimeNs() > PAST_M * 1_000_000_000L, step + " updates the parent's mtime");
            assertTrue(st.ctimeNs() > ctime, step + " updates the parent's ctime");
        }
    }

    /** A new file's atime, mtime and ctime are the current time. */
    @Test
    default void newFilesHaveCurrentTimestamps() throws Exception {
        long before = nowNs();
        Path f = file(dir().resolve("f"), "x");
        Stat st = Libc.stat(s(f));
        long slack = 2_000_000_000L; // coarse clocks
        for (long t : new long[] {st.atimeNs(), st.mtimeNs(), st.ctimeNs()}) {
            assertTrue(t >= before - slack && t <= nowNs() + slack, "timestamp " + t + " is not now (" + before + ")");
        }
    }

    /** statfs reports 255-byte names, free counts no larger than totals, and the same numbers through any file. */
    @Test
    default void statfsReportsConsistentNumbers() throws Exception {
        StatFs fs = Libc.statfs(s(dir()));
        assertEquals(255, fs.namelen());
        assertTrue(fs.bsize() > 0, "bsize");
        assertTrue(fs.blocks() >= fs.bfree() && fs.bfree() >= fs.bavail(), fs.toString());
        assertTrue(fs.files() >= fs.ffree(), fs.toString());
        StatFs viaFile = Libc.statfs(s(file(dir().resolve("f"), "x")));
        assertEquals(fs.namelen(), viaFile.namelen());
        assertEquals(fs.bsize(), viaFile.bsize());
        assertEquals(fs.blocks(), viaFile.blocks());
        assertEquals(fs.frsize(), Files.getFileStore(dir()).getBlockSize());
    }
}
