package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import dev.ringfuse.testkit.internal.Stat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Ownership and permission checks, with steps run as other users (uid/gid 1000 and 1001 via setpriv).
 * Needs root; a FUSE filesystem must be mounted with allow_other so that other users may enter it.
 */
public interface PosixOwnerScenarios extends ScenarioContext {
    int USER = 1000, OTHER = 1001;

    private Map<String, String> asUser(int uid, String python, String... args) throws Exception {
        Procs.Result r = Procs.pythonAs(uid, uid, python, args);
        assertEquals(0, r.exit(), r.err());
        return r.outcomes();
    }

    /** New files, directories, symlinks and fifos belong to the calling user and group (MULTI_USER, root). */
    @Test
    default void newFilesBelongToTheCaller() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path f = file(dir().resolve("root-file"), "x");
        Stat st = Libc.stat(s(f));
        assertEquals(Libc.geteuid(), st.uid());
        assertEquals(0, st.gid());
        Libc.chmod(s(dir()), 0777);
        Map<String, String> out = asUser(USER, """
                os.umask(0o027)
                d = sys.argv[1]
                t("file", lambda: os.close(os.open(d + "/u-file", os.O_CREAT | os.O_WRONLY, 0o666)))
                t("dir", lambda: os.mkdir(d + "/u-dir", 0o777))
                t("link", lambda: os.symlink("u-file", d + "/u-link"))
                t("fifo", lambda: os.mkfifo(d + "/u-fifo", 0o666))
                """, s(dir()));
        assertEquals(Map.of("file", "OK", "dir", "OK", "link", "OK", "fifo", "OK"), out);
        Stat uf = Libc.stat(s(dir().resolve("u-file")));
        assertEquals(Stat.S_IFREG | 0640, uf.mode());
        assertEquals(USER, uf.uid());
        assertEquals(USER, uf.gid());
        Stat ud = Libc.stat(s(dir().resolve("u-dir")));
        assertEquals(Stat.S_IFDIR | 0750, ud.mode());
        assertEquals(USER, ud.uid());
        assertEquals(USER, Libc.lstat(s(dir().resolve("u-link"))).uid());
        assertEquals(USER, Libc.lstat(s(dir().resolve("u-fifo"))).gid());
    }

    /** A set-group-ID directory gives new entries its group, and new subdirectories the bit (MULTI_USER, root). */
    @Test
    default void setgidDirectoriesPassTheirGroupOn() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path shared = Files.createDirectory(dir().resolve("shared"));
        Libc.lchown(s(shared), 0, 4242);
        Libc.chmod(s(shared), 02777);
        Map<String, String> out = asUser(USER, """
                d = sys.argv[1]
                t("file", lambda: os.close(os.open(d + "/f", os.O_CREAT | os.O_WRONLY, 0o644)))
                t("dir", lambda: os.mkdir(d + "/sub", 0o755))
                """, s(shared));
        assertEquals(Map.of("file", "OK", "dir", "OK"), out);
        Stat f = Libc.stat(s(shared.resolve("f")));
        assertEquals(USER, f.uid());
        assertEquals(4242, f.gid(), "a new file takes the setgid directory's group");
        Stat sub = Libc.stat(s(shared.resolve("sub")));
        assertEquals(4242, sub.gid());
        assertEquals(Stat.S_IFDIR | 02755, sub.mode(), "a new directory inherits the setgid bit");
    }

    /**
     * chown sets owner and group (-1 keeps one) and clears a file's set-ID bits; lchown changes a symlink, not its
     * target (MULTI_USER, root).
     */
    @Test
    default void chownSetsOwnersAndClearsSetuid() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path f = file(dir().resolve("f"), "x");
        Libc.lchown(s(f), USER, 2000);
        Stat st = Libc.stat(s(f));
        assertEquals(USER, st.uid());
        assertEquals(2000, st.gid());
        Libc.lchown(s(f), -1, 3000);
        assertEquals(USER, Libc.stat(s(f)).uid());
        assertEquals(3000, Libc.stat(s(f)).gid());
        Libc.chmod(s(f), 06755);
        Libc.lchown(s(f), OTHER, OTHER);
        assertEquals(Stat.S_IFREG | 0755, Libc.stat(s(f)).mode(), "chown of a file clears setuid and setgid");
        Path link = Files.createSymbolicLink(dir().resolve("link"), f);
        Libc.lchown(s(link), 77, 78);
        assertEquals(77, Libc.lstat(s(link)).uid());
        assertEquals(OTHER, Libc.stat(s(f)).uid(), "lchown leaves the target alone");
    }

    /** Permission bits are enforced for other users: reading, writing, creating and removing, sticky directories (MULTI_USER, root). */
    @Test
    default void permissionBitsAreEnforcedForOtherUsers() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        file(dir().resolve("secret"), "root only");
        Libc.chmod(s(dir().resolve("secret")), 0600);
        file(dir().resolve("readonly"), "read me");
        Path closed = Files.createDirectory(dir().resolve("closed"));
        file(closed.resolve("inner"), "x");
        Libc.chmod(s(closed), 0700);
        Path sticky = Files.createDirectory(dir().resolve("sticky"));
        Libc.chmod(s(sticky), 01777);
        Path theirs = file(sticky.resolve("theirs"), "other's");
        Libc.lchown(s(theirs), OTHER, OTHER);
        Path mine = file(dir().resolve("mine"), "user's");
        Libc.lchown(s(mine), USER, USER);
        Libc.chmod(s(mine), 0200);
        Map<String, String> out = asUser(USER, """
                d = sys.argv[1]
                t("read-0600", lambda: open(d + "/secret").read())
                t("read-0644", lambda: open(d + "/readonly").read())
                t("write-0644", lambda: open(d + "/readonly", "a").write("x"))
                t("create-in-0755", lambda: os.open(d + "/new", os.O_CREAT | os.O_WRONLY, 0o644))
                t("unlink-in-0755", lambda: os.unlink(d + "/readonly"))
                t("search-0700", lambda: os.stat(d + "/closed/inner"))
                t("list-0700", lambda: os.listdir(d + "/closed"))
                t("chmod-not-owner", lambda: os.chmod(d + "/readonly", 0o777))
                t("chown-to-other", lambda: os.chown(d + "/mine", 1001, -1))
                t("utimes-not-owner", lambda: os.utime(d + "/readonly", (1, 1)))
                t("utime-now-not-owner", lambda: os.utime(d + "/readonly"))
                t("sticky-unlink-theirs", lambda: os.unlink(d + "/sticky/theirs"))
                t("sticky-create", lambda: os.close(os.open(d + "/sticky/own", os.O_CREAT | os.O_WRONLY, 0o644)))
                t("sticky-unlink-own", lambda: os.unlink(d + "/sticky/own"))
                t("own-0200-read", lambda: open(d + "/mine").read())
                t("own-0200-write", lambda: open(d + "/mine", "a").write("x"))
                t("own-chmod", lambda: os.chmod(d + "/mine", 0o640))
                t("access-r", lambda: need(os.access(d + "/secret", os.R_OK)))
                """, s(dir()));
        assertEquals(Map.ofEntries(
                Map.entry("read-0600", "EACCES"), Map.entry("read-0644", "OK"), Map.entry("write-0644", "EACCES"),
                Map.entry("create-in-0755", "EACCES"), Map.entry("unlink-in-0755", "EACCES"),
                Map.entry("search-0700", "EACCES"), Map.entry("list-0700", "EACCES"),
                Map.entry("chmod-not-owner", "EPERM"), Map.entry("chown-to-other", "EPERM"),
                Map.entry("utimes-not-owner", "EPERM"), Map.entry("utime-now-not-owner", "EACCES"),
                Map.entry("sticky-unlink-theirs", "EPERM"), Map.entry("sticky-create", "OK"),
                Map.entry("sticky-unlink-own", "OK"), Map.entry("own-0200-read", "EACCES"),
                Map.entry("own-0200-write", "OK"), Map.entry("own-chmod", "OK"), Map.entry("access-r", "EACCES")),
                out);
        assertEquals("user'sx", Files.readString(mine));
        assertEquals(Stat.S_IFREG | 0640, Libc.stat(s(mine)).mode());
        assertEquals("read me", Files.readString(dir().resolve("readonly")));
    }
}
