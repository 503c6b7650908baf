package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static dev.ringfuse.testkit.internal.Check.tick;
import static dev.ringfuse.testkit.internal.Check.umask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Stat;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Symlinks, hard links, fifos, sockets and device nodes. */
public interface PosixLinkScenarios extends ScenarioContext {

    /** A symlink's target, relative, absolute or 4095 bytes long, comes back exactly, and lstat reports its length. */
    @Test
    default void symlinksStoreTheirTargetExactly() throws Exception {
        Path target = file(dir().resolve("target"), "through the link");
        Path rel = Files.createSymbolicLink(dir().resolve("rel"), Path.of("target"));
        Path abs = Files.createSymbolicLink(dir().resolve("abs"), target);
        assertEquals(Path.of("target"), Files.readSymbolicLink(rel));
        assertEquals(target, Files.readSymbolicLink(abs));
        Stat st = Libc.lstat(s(rel));
        assertEquals(Stat.S_IFLNK, st.type());
        assertEquals(6, st.size());
        assertEquals(0777, st.perms());
        assertEquals(s(target).length(), Libc.lstat(s(abs)).size());
        assertEquals("through the link", Files.readString(rel));
        assertEquals("through the link", Files.readString(abs));
        assertEquals(Libc.stat(s(target)).ino(), Libc.stat(s(rel)).ino());
        String longTarget = "t/".repeat(2047) + "t"; // 4095 bytes
        Path lng = Files.createSymbolicLink(dir().resolve("long"), Path.of(longTarget));
        assertEquals(longTarget, Files.readSymbolicLink(lng).toString());
    }

    /** Dangling symlinks give ENOENT when followed and O_CREAT through one creates its target; looping ones give ELOOP. */
    @Test
    default void danglingAndLoopingSymlinks() throws Exception {
        Path dangling = Files.createSymbolicLink(dir().resolve("dangling"), Path.of("missing"));
        assertTrue(Files.exists(dangling, LinkOption.NOFOLLOW_LINKS));
        assertErrno(Errno.ENOENT, () -> Libc.stat(s(dangling)));
        Files.createSymbolicLink(dir().resolve("a"), Path.of("b"));
        Files.createSymbolicLink(dir().resolve("b"), Path.of("a"));
        assertErrno(Errno.ELOOP, () -> Libc.stat(s(dir().resolve("a"))));
        assertThrows(FileAlreadyExistsException.class, () -> Files.createSymbolicLink(dir().resolve("a"), Path.of("x")));
        // O_CREAT through a dangling link creates its target
        int fd = Libc.open(s(dangling), Libc.O_CREAT | Libc.O_WRONLY, 0644);
        Libc.close(fd);
        assertEquals(Stat.S_IFREG, Libc.lstat(s(dir().resolve("missing"))).type());
    }

    /** Hard links share one inode, content and link count, and the file lives until its last name goes (HARD_LINKS). */
    @Test
    default void hardLinksShareOneInode() throws Exception {
        requires(Feature.HARD_LINKS);
        Path a = file(dir().resolve("a"), "shared");
        long ctime = Libc.stat(s(a)).ctimeNs();
        tick();
        Path b = Files.createLink(dir().resolve("b"), a);
        Stat sa = Libc.stat(s(a)), sb = Libc.stat(s(b));
        assertEquals(sa.ino(), sb.ino());
        assertEquals(2, sa.nlink());
        assertEquals(2, sb.nlink());
        assertTrue(sa.ctimeNs() > ctime, "link(2) changes the inode's ctime");
        Files.writeString(b, "changed via b");
        assertEquals("changed via b", Files.readString(a));
        Files.delete(a);
        assertEquals(1, Libc.stat(s(b)).nlink());
        assertEquals("changed via b", Files.readString(b));
        Path sub = Files.createDirectory(dir().resolve("sub"));
        assertErrno(Errno.EPERM, () -> Libc.linkat(s(sub), s(dir().resolve("dirlink")), 0));
        Path c = file(dir().resolve("c"), "c");
        assertErrno(Errno.EEXIST, () -> Libc.linkat(s(b), s(c), 0));
        assertErrno(Errno.ENOENT, () -> Libc.linkat(s(a), s(dir().resolve("d")), 0));
    }

    /** A fifo made with mknod carries data from a writer to a reader (SPECIAL_FILES). */
    @Test
    default void fifosCarryDataBetweenOpeners() throws Exception {
        requires(Feature.SPECIAL_FILES);
        Path fifo = dir().resolve("fifo");
        Libc.mknod(s(fifo), Stat.S_IFIFO | 0666, 0);
        Stat st = Libc.lstat(s(fifo));
        assertEquals(Stat.S_IFIFO, st.type());
        assertEquals(0666 & ~umask(), st.perms());
        assertEquals(0, st.size());
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (FileOutputStream out = new FileOutputStream(fifo.toFile())) {
                out.write("through the fifo".getBytes());
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try (FileInputStream in = new FileInputStream(fifo.toFile())) {
            assertEquals("through the fifo", new String(in.readAllBytes()));
        }
        writer.get(30, TimeUnit.SECONDS);
    }

    /**
     * Character and block devices keep their type and numbers (large ones too); sockets and regular files can be
     * made with mknod (SPECIAL_FILES, root).
     */
    @Test
    default void deviceNodesAndSocketsKeepTypeAndNumbers() throws Exception {
        requires(Feature.SPECIAL_FILES);
        requiresRoot();
        Path chr = dir().resolve("null"), blk = dir().resolve("blk"), big = dir().resolve("bignum");
        Libc.mknod(s(chr), Stat.S_IFCHR | 0600, Libc.makedev(1, 3));
        Libc.mknod(s(blk), Stat.S_IFBLK | 0640, Libc.makedev(7, 42));
        Libc.mknod(s(big), Stat.S_IFCHR | 0600, Libc.makedev(511, 1_048_575));
        Libc.mknod(s(dir().resolve("sock")), Stat.S_IFSOCK | 0600, 0);
        Libc.mknod(s(dir().resolve("reg")), Stat.S_IFREG | 0600, 0);
        Stat c = Libc.lstat(s(chr)), b = Libc.lstat(s(blk)), g = Libc.lstat(s(big));
        assertEquals(Stat.S_IFCHR | 0600, c.mode());
        assertEquals(1, c.rdevMajor());
        assertEquals(3, c.rdevMinor());
        assertEquals(Stat.S_IFBLK | (0640 & ~umask()), b.mode());
        assertEquals(7, b.rdevMajor());
        assertEquals(42, b.rdevMinor());
        assertEquals(511, g.rdevMajor());
        assertEquals(1_048_575, g.rdevMinor());
        assertEquals(Stat.S_IFSOCK, Libc.lstat(s(dir().resolve("sock"))).type());
        Stat reg = Libc.lstat(s(dir().resolve("reg")));
        assertEquals(Stat.S_IFREG | 0600, reg.mode());
        assertEquals(0, reg.size());
        assertErrno(Errno.EEXIST, () -> Libc.mknod(s(chr), Stat.S_IFCHR | 0600, Libc.makedev(1, 3)));
    }
}
