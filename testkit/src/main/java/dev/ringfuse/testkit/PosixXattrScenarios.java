package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.pattern;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.tick;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Extended attributes in the user.* namespace. */
public interface PosixXattrScenarios extends ScenarioContext {

    /** user.* extended attributes can be set, read, listed and removed (XATTR). */
    @Test
    default void userXattrsSetGetListRemove() throws Exception {
        requires(Feature.XATTR);
        String f = s(file(dir().resolve("f"), "x"));
        assertEquals(List.of(), Libc.listxattr(f));
        Libc.setxattr(f, "user.a", "alpha".getBytes(), 0);
        Libc.setxattr(f, "user.empty", new byte[0], 0);
        byte[] binary = pattern(21, 3000);
        binary[0] = 0;
        binary[2999] = 0;
        Libc.setxattr(f, "user.binary", binary, 0);
        assertArrayEquals("alpha".getBytes(), Libc.getxattr(f, "user.a"));
        assertArrayEquals(new byte[0], Libc.getxattr(f, "user.empty"));
        assertArrayEquals(binary, Libc.getxattr(f, "user.binary"));
        assertEquals(Set.of("user.a", "user.empty", "user.binary"), new HashSet<>(Libc.listxattr(f)));
        Libc.setxattr(f, "user.a", "replaced, longer".getBytes(), 0);
        assertArrayEquals("replaced, longer".getBytes(), Libc.getxattr(f, "user.a"));
        Libc.removexattr(f, "user.a");
        assertErrno(Errno.ENODATA, () -> Libc.getxattr(f, "user.a"));
        assertErrno(Errno.ENODATA, () -> Libc.removexattr(f, "user.a"));
        assertEquals(Set.of("user.empty", "user.binary"), new HashSet<>(Libc.listxattr(f)));
    }

    /**
     * XATTR_CREATE and XATTR_REPLACE are honoured, a too small buffer gives ERANGE, a name over 255 bytes is
     * refused (XATTR).
     */
    @Test
    default void xattrFlagsAndSizesAreEnforced() throws Exception {
        requires(Feature.XATTR);
        String f = s(file(dir().resolve("f"), "x"));
        Libc.setxattr(f, "user.k", "value".getBytes(), Libc.XATTR_CREATE);
        assertErrno(Errno.EEXIST, () -> Libc.setxattr(f, "user.k", "again".getBytes(), Libc.XATTR_CREATE));
        assertErrno(Errno.ENODATA, () -> Libc.setxattr(f, "user.missing", "v".getBytes(), Libc.XATTR_REPLACE));
        Libc.setxattr(f, "user.k", "newer".getBytes(), Libc.XATTR_REPLACE);
        assertArrayEquals("newer".getBytes(), Libc.getxattr(f, "user.k"));
        assertErrno(Errno.ERANGE, () -> Libc.getxattrSize(f, "user.k", 3));
        assertEquals(5, Libc.getxattrSize(f, "user.k", 5));
        assertErrno(Errno.ERANGE, () -> Libc.setxattr(f, "user." + "n".repeat(251), "v".getBytes(), 0));
        assertErrno(Errno.ENODATA, () -> Libc.getxattr(f, "user.never"));
    }

    /**
     * Extended attributes belong to the inode: shared by hard links, kept across renames, on directories too;
     * setxattr changes ctime; user.* on a symlink is refused (XATTR, HARD_LINKS).
     */
    @Test
    default void xattrsLiveOnTheInode() throws Exception {
        requires(Feature.XATTR);
        requires(Feature.HARD_LINKS);
        Path f = file(dir().resolve("f"), "x");
        Path d = Files.createDirectory(dir().resolve("d"));
        Path link = Files.createLink(dir().resolve("link"), f);
        long ctime = Libc.stat(s(f)).ctimeNs();
        tick();
        Libc.setxattr(s(f), "user.shared", "one inode".getBytes(), 0);
        assertTrue(Libc.stat(s(f)).ctimeNs() > ctime, "setxattr changes ctime");
        assertArrayEquals("one inode".getBytes(), Libc.getxattr(s(link), "user.shared"));
        Libc.setxattr(s(d), "user.on-dir", "dir value".getBytes(), 0);
        assertArrayEquals("dir value".getBytes(), Libc.getxattr(s(d), "user.on-dir"));
        Files.move(f, dir().resolve("moved"));
        assertArrayEquals("one inode".getBytes(), Libc.getxattr(s(dir().resolve("moved")), "user.shared"));
        Path sym = Files.createSymbolicLink(dir().resolve("sym"), Path.of("moved"));
        assertErrno(Errno.EPERM, () -> Libc.setxattr(s(sym), "user.x", "v".getBytes(), 0));
    }
}
