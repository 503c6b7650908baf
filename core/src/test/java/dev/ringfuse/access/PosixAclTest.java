package dev.ringfuse.access;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.FuseException;
import org.junit.jupiter.api.Test;

/** The xattr codec with exact bytes, the kernel's validity rules, chmod, inheritance and the access check. */
class PosixAclTest {
    /** user::rw-, user:1000:r--, group::r--, mask::r--, other::--- as setfacl sends it. */
    private static final byte[] NAMED = {
            2, 0, 0, 0,
            1, 0, 6, 0, -1, -1, -1, -1,
            2, 0, 4, 0, (byte) 0xe8, 3, 0, 0,
            4, 0, 4, 0, -1, -1, -1, -1,
            0x10, 0, 4, 0, -1, -1, -1, -1,
            0x20, 0, 0, 0, -1, -1, -1, -1};

    @Test
    void roundTripsExactBytes() {
        PosixAcl a = PosixAcl.parse(NAMED);
        assertEquals(5, a.entries().size());
        assertEquals(new PosixAcl.Entry(PosixAcl.USER, 4, 1000), a.entries().get(1));
        assertArrayEquals(NAMED, a.toXattr());
        assertArrayEquals(new byte[] {2, 0, 0, 0, 1, 0, 7, 0, -1, -1, -1, -1, 4, 0, 5, 0, -1, -1, -1, -1, 0x20, 0, 4, 0, -1, -1, -1, -1},
                PosixAcl.fromMode(0754).toXattr());
    }

    @Test
    void rejectsWhatTheKernelRejects() {
        byte[] wrongVersion = NAMED.clone();
        wrongVersion[0] = 1;
        byte[] badPerm = NAMED.clone();
        badPerm[6] = 8;
        // a named entry without a mask
        byte[] noMask = new PosixAcl(PosixAcl.parse(NAMED).entries().stream().filter(e -> e.tag() != PosixAcl.MASK).toList()).toXattr();
        byte[] outOfOrder = NAMED.clone(); // swap user:1000 and group::
        System.arraycopy(NAMED, 12, outOfOrder, 20, 8);
        System.arraycopy(NAMED, 20, outOfOrder, 12, 8);
        for (byte[] bad : new byte[][] {wrongVersion, badPerm, noMask, outOfOrder, {2, 0, 0, 0}, {2, 0, 0, 0, 1, 0}}) {
            assertThrows(FuseException.class, () -> PosixAcl.parse(bad));
        }
    }

    @Test
    void modeFollowsTheMaskAndChmodRewritesIt() {
        PosixAcl a = PosixAcl.parse(NAMED);
        assertEquals(0100640, a.applyTo(0100777));
        assertFalse(a.isModeOnly());
        PosixAcl c = a.chmod(0705);
        assertEquals(0705, c.applyTo(0));
        assertEquals(4, c.entries().get(2).perm()); // group:: keeps its bits, the mask took the 0
        assertTrue(PosixAcl.fromMode(0640).isModeOnly());
    }

    @Test
    void createMasksByTheRequestedMode() {
        PosixAcl dflt = new PosixAcl(java.util.List.of(new PosixAcl.Entry(PosixAcl.USER_OBJ, 7, -1),
                new PosixAcl.Entry(PosixAcl.USER, 7, 1234), new PosixAcl.Entry(PosixAcl.GROUP_OBJ, 5, -1),
                new PosixAcl.Entry(PosixAcl.MASK, 7, -1), new PosixAcl.Entry(PosixAcl.OTHER, 0, -1)));
        PosixAcl.Created f = dflt.create(0666);
        assertEquals(0660, f.mode());
        assertEquals(6, f.access().entries().get(3).perm());
        assertNull(PosixAcl.fromMode(0755).create(0666).access());
        assertEquals(0644, PosixAcl.fromMode(0755).create(0666).mode());
    }

    @Test
    void permissionCheckAsTheKernel() {
        PosixAcl a = PosixAcl.parse(NAMED);
        assertTrue(a.permits(0, 0, new int[0], 0, 0, 6));          // owner
        assertTrue(a.permits(1000, 1000, new int[0], 0, 0, 4));    // named user, within the mask
        assertFalse(a.permits(1000, 1000, new int[0], 0, 0, 2));
        assertTrue(a.permits(7, 7, new int[] {0}, 0, 0, 4));       // owning group via a supplementary group
        assertFalse(a.permits(7, 7, new int[0], 0, 0, 4));         // other: nothing
    }
}
