package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.file;
import static dev.ringfuse.testkit.internal.Check.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * POSIX ACLs through setfacl/getfacl (package acl): the mode and the ACL in step, default ACLs inherited (and
 * overriding the umask), and access granted or refused to other users by named entries and the mask. Runs on
 * tmpfs as the reference.
 */
public interface PosixAclScenarios extends ScenarioContext {
    int NAMED = 1000, STRANGER = 1001, MEMBER = 1002, NOBODY = 1003, ACL_GROUP = 4243;

    private static void requireTools() {
        assumeTrue(Procs.onPath("setfacl") && Procs.onPath("getfacl"), "needs setfacl/getfacl (apt-get install acl)");
    }

    private static List<String> acl(Path p) throws Exception {
        Procs.Result r = Procs.run("getfacl", "-n", "-c", "-p", s(p));
        assertEquals(0, r.exit(), r.err());
        return r.out().lines().filter(l -> !l.isBlank()).toList();
    }

    private static void setfacl(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("setfacl"));
        cmd.addAll(List.of(args));
        Procs.Result r = Procs.run(Procs.DEFAULT_TIMEOUT, cmd);
        assertEquals(0, r.exit(), r.err());
    }

    /** An access ACL and the mode bits stay in step: setfacl sets the group bits from the mask, chmod rewrites the mask, an ACL equal to the mode disappears (POSIX_ACL). */
    @Test
    default void aclAndModeStayInStep() throws Exception {
        requires(Feature.POSIX_ACL);
        requireTools();
        Path f = file(dir().resolve("f"), "x");
        Libc.chmod(s(f), 0600);
        setfacl("-m", "u:" + NAMED + ":rw", s(f));
        assertEquals(List.of("user::rw-", "user:" + NAMED + ":rw-", "group::---", "mask::rw-", "other::---"), acl(f));
        assertEquals(0660, Libc.stat(s(f)).mode() & 07777, "the group bits show the mask");
        Libc.chmod(s(f), 0640);
        assertEquals(List.of("user::rw-", "user:" + NAMED + ":rw-\t#effective:r--", "group::---", "mask::r--", "other::---"), acl(f));
        setfacl("-b", s(f));
        assertEquals(List.of("user::rw-", "group::---", "other::---"), acl(f));
        assertEquals(0600, Libc.stat(s(f)).mode() & 07777);
        Procs.Result onFile = Procs.run("setfacl", "-d", "-m", "u:" + NAMED + ":r", s(f));
        assertNotEquals(0, onFile.exit(), "a default ACL on a file");
    }

    /** A directory's default ACL is inherited by new files and directories and replaces the umask; symlinks get none (POSIX_ACL). */
    @Test
    default void defaultAclIsInheritedAndOverridesTheUmask() throws Exception {
        requires(Feature.POSIX_ACL);
        requireTools();
        Path d = Files.createDirectory(dir().resolve("d"));
        setfacl("-d", "-m", "u:" + NAMED + ":rwx,g::rx,o::-", s(d));
        Procs.Result r = Procs.sh("umask 077; cd \"$1\" && touch file && mkdir sub && ln -s file link", s(d));
        assertEquals(0, r.exit(), r.err());
        assertEquals(0660, Libc.stat(s(d.resolve("file"))).mode() & 07777, "mode from the default ACL, not the umask");
        assertEquals(0770, Libc.stat(s(d.resolve("sub"))).mode() & 07777);
        assertEquals(List.of("user::rw-", "user:" + NAMED + ":rwx\t#effective:rw-", "group::r-x\t#effective:r--",
                "mask::rw-", "other::---"), acl(d.resolve("file")));
        assertTrue(acl(d.resolve("sub")).contains("default:user:" + NAMED + ":rwx"), "subdirectories inherit the default ACL");
        Procs.Result plain = Procs.sh("umask 077; mkdir \"$1/plain\" && touch \"$1/plain/f\" && stat -c %a \"$1/plain/f\"", s(dir()));
        assertEquals("600", plain.out().trim(), "without a default ACL the umask applies");
    }

    /** Named user and group ACL entries grant access to other users, and the mask limits them (POSIX_ACL, MULTI_USER, root). */
    @Test
    default void aclGrantsAndRefusesOtherUsers() throws Exception {
        requires(Feature.POSIX_ACL);
        requires(Feature.MULTI_USER);
        requiresRoot();
        requireTools();
        Libc.chmod(s(dir()), 0755);
        Path f = file(dir().resolve("secret"), "data");
        Libc.chmod(s(f), 0600);
        setfacl("-m", "u:" + NAMED + ":r", s(f));
        assertEquals(0, Procs.runAs(NAMED, NAMED, "cat", s(f)).exit(), "a named user reads");
        assertNotEquals(0, Procs.runAs(NAMED, NAMED, "sh", "-c", "echo x >> \"$0\"", s(f)).exit(), "but may not write");
        assertNotEquals(0, Procs.runAs(STRANGER, STRANGER, "cat", s(f)).exit(), "others may not read");
        setfacl("-m", "m::-", s(f));
        assertNotEquals(0, Procs.runAs(NAMED, NAMED, "cat", s(f)).exit(), "the mask limits named entries");
    }

    private static Map<String, String> probe(int uid, int[] groups, String python, String... args) throws Exception {
        Procs.Result r = Procs.pythonAsWithGroups(uid, uid, groups, python, args);
        assertEquals(0, r.exit(), r.err());
        return r.outcomes();
    }

    /** Read, write, list, add and search as one user (sys.argv[1]: the directory, [2]: the file in it). */
    String PROBE = """
            d, f = sys.argv[1], sys.argv[2]
            t("read", lambda: open(f).read())
            t("write", lambda: os.close(os.open(f, os.O_WRONLY)))
            t("list", lambda: os.listdir(d))
            t("add", lambda: open(d + "/" + str(os.getuid()), "w").close())
            t("stat", lambda: os.stat(f))
            """;

    /**
     * A directory's ACL and the default ACL its files inherit decide for unprivileged users (setpriv), as the
     * kernel decides them: a named user adds a file where the mode lets only the owner, the file inherits
     * entries for a second user and for a named group reached through a supplementary group, the mask limits
     * them, the file's owner (not others) may change its ACL, and anyone else is refused.
     */
    @Test
    default void directoryAndInheritedAclsDecideForOtherUsers() throws Exception {
        requires(Feature.POSIX_ACL);
        requires(Feature.MULTI_USER);
        requiresRoot();
        requireTools();
        Libc.chmod(s(dir()), 0755);
        Path d = Files.createDirectory(dir().resolve("shared"));
        Libc.chmod(s(d), 0700);
        setfacl("-m", "u:" + NAMED + ":rwx,u:" + STRANGER + ":x,g:" + ACL_GROUP + ":x", s(d));
        setfacl("-d", "--set", "u::rw,u:" + STRANGER + ":r,g::-,g:" + ACL_GROUP + ":rw,m::rw,o::-", s(d));
        Path f = d.resolve("f");
        Procs.Result made = Procs.pythonAsWithGroups(NAMED, NAMED, new int[0],
                "os.umask(0o077); open(sys.argv[1], 'w').write('data')", s(f));
        assertEquals(0, made.exit(), "the named user adds a file in a 0700 directory: " + made.err());
        assertEquals(0660, Libc.stat(s(f)).mode() & 07777, "the default ACL, not the umask");
        assertEquals(NAMED, Libc.stat(s(f)).uid());
        assertEquals(List.of("user::rw-", "user:" + STRANGER + ":r--", "group::---", "group:" + ACL_GROUP + ":rw-",
                "mask::rw-", "other::---"), acl(f));

        assertEquals(Map.of("read", "OK", "write", "EACCES", "list", "EACCES", "add", "EACCES", "stat", "OK"),
                probe(STRANGER, new int[0], PROBE, s(d), s(f)), "a named user: r on the file, x on the directory");
        assertEquals(Map.of("read", "OK", "write", "OK", "list", "EACCES", "add", "EACCES", "stat", "OK"),
                probe(MEMBER, new int[] {ACL_GROUP}, PROBE, s(d), s(f)), "a named group, as a supplementary group");
        assertEquals(Map.of("read", "EACCES", "write", "EACCES", "list", "EACCES", "add", "EACCES", "stat", "EACCES"),
                probe(NOBODY, new int[0], PROBE, s(d), s(f)), "anyone else");

        assertNotEquals(0, Procs.runAs(STRANGER, STRANGER, "setfacl", "-m", "u:" + STRANGER + ":rw", s(f)).exit(),
                "not the owner");
        Procs.Result mask = Procs.runAs(NAMED, NAMED, "setfacl", "-m", "m::r", s(f));
        assertEquals(0, mask.exit(), "the owner sets the mask: " + mask.err());
        assertEquals(0640, Libc.stat(s(f)).mode() & 07777);
        assertEquals(Map.of("read", "OK", "write", "EACCES", "list", "EACCES", "add", "EACCES", "stat", "OK"),
                probe(MEMBER, new int[] {ACL_GROUP}, PROBE, s(d), s(f)), "the mask limits the named group");
        assertEquals("OK", probe(STRANGER, new int[0], PROBE, s(d), s(f)).get("read"));
    }
}
