package dev.ringfuse.access;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import org.junit.jupiter.api.Test;

import static dev.ringfuse.access.Permissions.R;
import static dev.ringfuse.access.Permissions.W;
import static dev.ringfuse.access.Permissions.X;
import static org.junit.jupiter.api.Assertions.*;

/** The kernel's rules as {@link Permissions} states them, case by case (the mounted tests check them end to end). */
class PermissionsTest {
    private static final int REG = 0100000, DIR = 0040000;
    private static final Caller ROOT = Caller.of(0, 0);
    private static final Caller OWNER = Caller.of(1000, 1000);
    private static final Caller MEMBER = Caller.of(1001, 1001, 4242);
    private static final Caller STRANGER = Caller.of(1002, 1002);

    private static Errno errno(Runnable r) {
        try {
            r.run();
            return null;
        } catch (FuseException e) {
            return e.errno();
        }
    }

    @Test
    void classesAreExclusiveAndRootOverridesButExecute() {
        Subject f = new Subject(REG | 0075, 1000, 4242);
        assertFalse(Permissions.may(OWNER, f, R), "the owner gets the owner bits only, even if group/other allow more");
        assertTrue(Permissions.may(MEMBER, f, R | W | X), "a supplementary group counts");
        assertTrue(Permissions.may(STRANGER, f, R | X));
        assertFalse(Permissions.may(STRANGER, f, W));
        assertTrue(Permissions.may(ROOT, new Subject(REG, 5, 5), R | W));
        assertFalse(Permissions.may(ROOT, new Subject(REG | 0666, 5, 5), X), "root executes only what someone may");
        assertTrue(Permissions.may(ROOT, new Subject(REG | 0001, 5, 5), X));
        assertTrue(Permissions.may(ROOT, new Subject(DIR, 5, 5), R | W | X), "root searches any directory");
    }

    @Test
    void extendedEntriesDecideForNonOwnersWhenTheModeHasGroupBits() {
        ExtendedAccess acl = c -> c.uid() == 1002 ? R : 0;
        assertTrue(Permissions.may(STRANGER, new Subject(REG | 0640, 1000, 4242, acl), R));
        assertFalse(Permissions.may(MEMBER, new Subject(REG | 0640, 1000, 4242, acl), R), "the entries replace the group class");
        assertTrue(Permissions.may(OWNER, new Subject(REG | 0640, 1000, 4242, acl), W), "never for the owner");
        assertFalse(Permissions.may(STRANGER, new Subject(REG | 0604, 1000, 4242, c -> { throw new AssertionError(); }), W),
                "no group bits: not consulted");
    }

    @Test
    void aWantedSetIsGrantedOrRefusedAsAWhole() {
        // two group entries, one granting r and one w: posix_acl_permission grants r and w, never rw at once
        ExtendedAccess twoGroups = new ExtendedAccess() {
            @Override public int permitted(Caller c) { return R | W; }
            @Override public int permits(Caller c, int want) { return want == R || want == W ? 1 : 0; }
        };
        Subject f = new Subject(REG | 0660, 1000, 4242, twoGroups);
        assertTrue(Permissions.may(MEMBER, f, R));
        assertTrue(Permissions.may(MEMBER, f, W));
        assertFalse(Permissions.may(MEMBER, f, R | W), "the entry decides, not the group class (rw)");
        assertTrue(Permissions.may(Caller.of(0, 0), f, R | W), "root's override comes after the entries");
    }

    @Test
    void errnosFollowTheKernel() {
        Subject secret = new Subject(REG | 0600, 0, 0);
        assertEquals(Errno.EACCES, errno(() -> Permissions.checkOpen(STRANGER, secret, 0)));
        assertEquals(Errno.EACCES, errno(() -> Permissions.checkOpen(STRANGER, new Subject(REG | 0644, 0, 0), 01000)), "O_TRUNC needs write");
        assertEquals(Errno.EACCES, errno(() -> Permissions.checkOpen(STRANGER, new Subject(REG | 0644, 0, 0), 0x20)), "exec needs x");
        assertEquals(Errno.EPERM, errno(() -> Permissions.chmod(STRANGER, secret, 0777)));
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkChown(STRANGER, secret, 1002, -1)));
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkUtimens(STRANGER, new Subject(REG | 0666, 0, 0), false)));
        assertNull(errno(() -> Permissions.checkUtimens(STRANGER, new Subject(REG | 0666, 0, 0), true)));
        assertEquals(Errno.EACCES, errno(() -> Permissions.checkUtimens(STRANGER, secret, true)));
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkXattr(STRANGER, new Subject(REG | 0666, 0, 0), "trusted.x", true)));
        assertEquals(Errno.ENODATA, errno(() -> Permissions.checkXattr(STRANGER, new Subject(REG | 0666, 0, 0), "trusted.x", false)));
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkXattr(STRANGER, new Subject(REG | 0666, 0, 0), "security.x", true)));
        assertNull(errno(() -> Permissions.checkXattr(STRANGER, new Subject(REG | 0600, 0, 0), "security.x", false)));
        assertEquals(Errno.EACCES, errno(() -> Permissions.checkXattr(STRANGER, secret, "user.x", false)));
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkXattr(STRANGER, new Subject(0020000 | 0666, 0, 0), "user.x", true)));
        assertFalse(Permissions.listable(STRANGER, "trusted.x"));
        assertTrue(Permissions.listable(ROOT, "trusted.x"));
    }

    @Test
    void stickyDirectoriesProtectOthersEntries() {
        Subject tmp = new Subject(DIR | 01777, 0, 0);
        Subject theirs = new Subject(REG | 0666, 1000, 1000);
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkDelete(STRANGER, tmp, theirs)));
        assertNull(errno(() -> Permissions.checkDelete(OWNER, tmp, theirs)));
        assertNull(errno(() -> Permissions.checkDelete(STRANGER, new Subject(DIR | 01777, 1002, 0), theirs)), "the directory's owner may");
        assertEquals(Errno.EACCES, errno(() -> Permissions.checkDelete(OWNER, new Subject(DIR | 0755, 0, 0), theirs)));
    }

    @Test
    void chmodAndChownRules() {
        Subject mine = new Subject(REG | 0644, 1000, 4242);
        assertEquals(0755, Permissions.chmod(OWNER, mine, 02755), "outside the group: S_ISGID dropped silently");
        assertEquals(02755, Permissions.chmod(Caller.of(1000, 1000, 4242), mine, 02755), "a member keeps it");
        assertEquals(02755, Permissions.chmod(ROOT, mine, 02755));
        assertNull(errno(() -> Permissions.checkChown(Caller.of(1000, 1000, 77), mine, -1, 77)), "owner to one of its groups");
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkChown(OWNER, mine, -1, 77)));
        assertEquals(Errno.EPERM, errno(() -> Permissions.checkChown(OWNER, mine, 1002, -1)));
        assertNull(errno(() -> Permissions.checkChown(OWNER, mine, 1000, 4242)), "no change is allowed to the owner");
        assertTrue(Permissions.isPrivilegeKill(new Subject(REG | 06777, 0, 0), 0777));
        assertTrue(Permissions.isPrivilegeKill(new Subject(REG | 06777, 0, 0), 02777));
        assertFalse(Permissions.isPrivilegeKill(new Subject(REG | 04777, 0, 0), 0776), "other bits changed");
        assertFalse(Permissions.isPrivilegeKill(new Subject(REG | 0777, 0, 0), 04777), "adding is no kill");
    }

    @Test
    void supplementaryGroupsComeFromTheStatusFile() {
        String status = "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nUid:\t1000\t1000\t1000\t1000\n"
                + "Gid:\t1000\t1000\t1000\t1000\nFDSize:\t64\nGroups:\t4 24 27 4242 \nNStgid:\t1\n";
        assertArrayEquals(new int[] {4, 24, 27, 4242}, Caller.parseGroups(status));
        assertArrayEquals(new int[0], Caller.parseGroups("Name:\tx\nGroups:\t\nNStgid:\t1\n"));
        assertArrayEquals(new int[0], Caller.parseGroups("Name:\tx\n"));
        assertArrayEquals(new int[0], Caller.groupsOf(Integer.MAX_VALUE), "a caller that is gone has none");
    }
}
