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
import org.junit.jupiter.api.Test;

/**
 * POSIX ACLs through setfacl/getfacl (package acl): the mode and the ACL in step, default ACLs inherited (and
 * overriding the umask), and access granted or refused to other users by named entries and the mask. Runs on
 * tmpfs as the reference.
 */
public interface PosixAclScenarios extends ScenarioContext {
    int NAMED = 1000, STRANGER = 1001;

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
}
