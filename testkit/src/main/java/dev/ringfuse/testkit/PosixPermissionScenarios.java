package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import dev.ringfuse.testkit.internal.Stat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an unprivileged user on the same host may not do to others' files, and what the kernel does when
 * others change privileged files: the same with and without default_permissions (without it the
 * filesystem checks everything itself). Steps run as other users via setpriv; needs root and allow_other.
 */
public interface PosixPermissionScenarios extends ScenarioContext {
    int USER = 1000, GROUP = 4242;

    private Map<String, String> as(int uid, int[] groups, String python, String... args) throws Exception {
        Procs.Result r = Procs.pythonAsWithGroups(uid, uid, groups, python, args);
        assertEquals(0, r.exit(), r.err());
        return r.outcomes();
    }

    /** The probe of issue 13: another user's 0600 file stays unread, unchanged and owned. */
    @Test
    default void othersCannotReadWriteOrChangeAPrivateFile() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path secret = file(dir().resolve("secret"), "root only");
        Libc.chmod(s(secret), 0600);
        Libc.chmod(s(dir()), 0777);
        boolean xattrs = claims(Feature.XATTR);
        boolean links = claims(Feature.HARD_LINKS)
                && Files.readAllLines(Path.of("/proc/sys/fs/protected_hardlinks")).get(0).trim().equals("1"); // not readString: a sysctl reads back 1 byte
        if (xattrs) {
            Procs.Result r = Procs.python("os.setxattr(sys.argv[1], 'trusted.t', b'1'); os.setxattr(sys.argv[1], 'user.y', b'1')", s(secret));
            assertEquals(0, r.exit(), r.err());
        }
        Map<String, String> out = as(USER, new int[0], """
                f = sys.argv[1] + "/secret"
                t("read", lambda: open(f).read())
                t("write", lambda: os.close(os.open(f, os.O_WRONLY)))
                t("append", lambda: os.close(os.open(f, os.O_WRONLY | os.O_APPEND)))
                t("trunc-read-only-open", lambda: os.close(os.open(f, os.O_RDONLY | os.O_TRUNC)))
                t("truncate", lambda: os.truncate(f, 0))
                t("chmod", lambda: os.chmod(f, 0o777))
                t("chown", lambda: os.chown(f, os.getuid(), -1))
                t("chgrp", lambda: os.chown(f, -1, os.getgid()))
                t("utime", lambda: os.utime(f, (1, 1)))
                t("utime-now", lambda: os.utime(f))
                t("access-r", lambda: need(os.access(f, os.R_OK)))
                t("access-w", lambda: need(os.access(f, os.W_OK)))
                if sys.argv[2] == "1":
                    t("set-user", lambda: os.setxattr(f, "user.x", b"1"))
                    t("get-user", lambda: os.getxattr(f, "user.y"))
                    t("set-trusted", lambda: os.setxattr(f, "trusted.x", b"1"))
                    t("set-security", lambda: os.setxattr(f, "security.x", b"1"))
                    print("lists-trusted", any(n.startswith("trusted.") for n in os.listxattr(f)))
                if sys.argv[3] == "1":
                    t("hardlink", lambda: os.link(f, sys.argv[1] + "/mine"))
                """, s(dir()), xattrs ? "1" : "0", links ? "1" : "0");
        Map<String, String> want = new LinkedHashMap<>();
        for (String k : new String[] {"read", "write", "append", "trunc-read-only-open", "truncate", "utime-now",
                "access-r", "access-w"}) {
            want.put(k, "EACCES");
        }
        for (String k : new String[] {"chmod", "chown", "chgrp", "utime"}) want.put(k, "EPERM");
        if (xattrs) {
            want.put("set-user", "EACCES");
            want.put("get-user", "EACCES");
            want.put("set-trusted", "EPERM");
            want.put("set-security", "EPERM");
            want.put("lists-trusted", "False"); // listing needs no permission, but trusted.* names are root's
        }
        if (links) want.put("hardlink", "EPERM");
        assertEquals(want, out);
        assertEquals("root only", Files.readString(secret));
        Stat st = Libc.stat(s(secret));
        assertEquals(Stat.S_IFREG | 0600, st.mode());
        assertEquals(0, st.uid());
    }

    /** Issue 18.2: a supplementary group is as good as the primary one, for creating and for reading. */
    @Test
    default void supplementaryGroupsCount() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path shared = Files.createDirectory(dir().resolve("shared"));
        Libc.lchown(s(shared), 0, GROUP);
        Libc.chmod(s(shared), 02775);
        Path grp = file(dir().resolve("grp"), "for the group");
        Libc.lchown(s(grp), 0, GROUP);
        Libc.chmod(s(grp), 0640);
        Path closed = Files.createDirectory(dir().resolve("closed"));
        Libc.lchown(s(closed), 0, GROUP);
        Libc.chmod(s(closed), 0750);
        String probe = """
                os.umask(0o022)
                d = sys.argv[1]
                t("create", lambda: os.close(os.open(d + "/shared/f", os.O_CREAT | os.O_WRONLY, 0o644)))
                t("mkdir", lambda: os.mkdir(d + "/shared/sub"))
                t("symlink", lambda: os.symlink("f", d + "/shared/l"))
                t("rename", lambda: os.rename(d + "/shared/l", d + "/shared/l2"))
                t("read", lambda: open(d + "/grp").read())
                t("access", lambda: need(os.access(d + "/closed", os.X_OK)))
                t("chdir", lambda: os.chdir(d + "/closed"))
                if sys.argv[2] == "1":
                    t("mkfifo", lambda: os.mkfifo(d + "/shared/fifo"))
                if sys.argv[3] == "1":
                    t("link", lambda: os.link(d + "/shared/f", d + "/shared/f2"))
                """;
        String fifo = claims(Feature.SPECIAL_FILES) ? "1" : "0", link = claims(Feature.HARD_LINKS) ? "1" : "0";
        Map<String, String> outsider = as(USER, new int[0], probe, s(dir()), fifo, link);
        Map<String, String> member = as(USER, new int[] {GROUP}, probe, s(dir()), fifo, link);
        for (String k : member.keySet()) {
            assertEquals("OK", member.get(k), k + " as a member through a supplementary group: " + member);
            if (!k.equals("rename") && !k.equals("link")) assertEquals("EACCES", outsider.get(k), k + " as an outsider: " + outsider);
        }
        Stat f = Libc.stat(s(shared.resolve("f")));
        assertEquals(USER, f.uid());
        assertEquals(GROUP, f.gid(), "the setgid directory's group");
        assertEquals(Stat.S_IFDIR | 02755, Libc.stat(s(shared.resolve("sub"))).mode(), "and its setgid bit");
    }

    /**
     * Issues 18.1 and 18.4: another user's write, truncate, fallocate or copy_file_range clears set-user-ID
     * (and group-executable set-group-ID) of a root file, as tmpfs does, and right away nobody sees the old
     * mode (stat -c %a asks the kernel for the mode only, which an attribute cache that was merely marked
     * stale for size and times would still answer).
     */
    @Test
    default void othersChangesKillPrivilegesAtOnce() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        String[] ops = claims(Feature.FALLOCATE) ? new String[] {"append", "write", "truncate", "ftruncate", "fallocate", "copy"}
                : new String[] {"append", "write", "truncate", "ftruncate", "copy"};
        file(dir().resolve("src"), "copied bytes");
        for (String op : ops) {
            for (int mode : new int[] {04777, 06777}) {
                Path f = file(dir().resolve(op + Integer.toOctalString(mode)), "#!/bin/sh\ntrue\n");
                Libc.chmod(s(f), mode);
                Libc.stat(s(f)); // the kernel caches the privileged mode
            }
        }
        Map<String, String> out = as(USER, new int[0], """
                d = sys.argv[1]
                def op(name, p):
                    if name == "append":
                        fd = os.open(p, os.O_WRONLY | os.O_APPEND); os.write(fd, b"x"); os.close(fd)
                    elif name == "write":
                        fd = os.open(p, os.O_WRONLY); os.pwrite(fd, b"x", 1); os.close(fd)
                    elif name == "truncate":
                        os.truncate(p, 100)
                    elif name == "ftruncate":
                        fd = os.open(p, os.O_WRONLY); os.ftruncate(fd, 3); os.close(fd)
                    elif name == "fallocate":
                        fd = os.open(p, os.O_WRONLY); os.posix_fallocate(fd, 0, 65536); os.close(fd)
                    elif name == "copy":
                        s = os.open(d + "/src", os.O_RDONLY); fd = os.open(p, os.O_WRONLY)
                        os.copy_file_range(s, fd, 6, 0, 0); os.close(fd); os.close(s)
                for name in sys.argv[2:]:
                    for m in ("4777", "6777"):
                        t(name + m, lambda: op(name, d + "/" + name + m))
                """, withOps(s(dir()), ops));
        for (String k : out.keySet()) assertEquals("OK", out.get(k), k);
        StringBuilder script = new StringBuilder();
        for (String op : ops) script.append(" ").append(op).append("4777 ").append(op).append("6777");
        Procs.Result modes = Procs.sh("cd \"$1\" && stat -c '%n %a' " + script, s(dir()));
        assertEquals(0, modes.exit(), modes.err());
        StringBuilder want = new StringBuilder();
        for (String op : ops) want.append(op).append("4777 777\n").append(op).append("6777 777\n");
        assertEquals(want.toString(), modes.out(), "no set-ID bit survives, and the kernel shows none right away");
    }

    private static String[] withOps(String dir, String[] ops) {
        String[] a = new String[ops.length + 1];
        a[0] = dir;
        System.arraycopy(ops, 0, a, 1, ops.length);
        return a;
    }

    /** chmod by an owner outside the file's group drops S_ISGID; a member (supplementary) keeps it. */
    @Test
    default void setgidNeedsTheGroup() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path a = file(dir().resolve("a"), "x"), b = file(dir().resolve("b"), "x");
        Libc.lchown(s(a), USER, GROUP);
        Libc.lchown(s(b), USER, GROUP);
        String chmod = "t('chmod', lambda: os.chmod(sys.argv[1], 0o2755))";
        assertEquals(Map.of("chmod", "OK"), as(USER, new int[0], chmod, s(a)));
        assertEquals(Map.of("chmod", "OK"), as(USER, new int[] {GROUP}, chmod, s(b)));
        assertEquals(Stat.S_IFREG | 0755, Libc.stat(s(a)).mode(), "outside the group: S_ISGID silently dropped");
        assertEquals(Stat.S_IFREG | 02755, Libc.stat(s(b)).mode());
    }

    /** exec needs the execute bit of the caller's class; moving a directory to another parent needs write on it. */
    @Test
    default void execAndDirectoryMovesFollowTheCallersClass() throws Exception {
        requiresRoot();
        requires(Feature.MULTI_USER);
        Path prog = dir().resolve("prog");
        Files.copy(Path.of("/bin/true"), prog);
        Libc.chmod(s(prog), 0700);
        Path from = Files.createDirectory(dir().resolve("from")), to = Files.createDirectory(dir().resolve("to"));
        Libc.chmod(s(from), 0777);
        Libc.chmod(s(to), 0777);
        Files.createDirectory(from.resolve("sub")); // root's, 0755
        String probe = """
                d = sys.argv[1]
                import subprocess
                def run():
                    subprocess.run([d + "/prog"], check=True)
                t("exec", run)
                t("move-dir", lambda: os.rename(d + "/from/sub", d + "/to/sub"))
                t("rename-dir-in-place", lambda: os.rename(d + "/from/sub", d + "/from/sub2"))
                """;
        assertEquals(Map.of("exec", "EACCES", "move-dir", "EACCES", "rename-dir-in-place", "OK"), as(USER, new int[0], probe, s(dir())));
        Libc.chmod(s(prog), 0755);
        assertEquals("OK", as(USER, new int[0], "t('exec', lambda: __import__('subprocess').run([sys.argv[1]], check=True))", s(prog)).get("exec"));
    }
}
