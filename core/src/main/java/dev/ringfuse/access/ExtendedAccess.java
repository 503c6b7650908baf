package dev.ringfuse.access;

/**
 * Access entries beyond the mode's owner, group and other classes: a POSIX ACL. The kernel consults them
 * (check_acl) only for a caller who is not the owner and only when the mode has group bits, which for a
 * file with an ACL are the ACL's mask; the owner always gets the owner bits.
 */
@FunctionalInterface
public interface ExtendedAccess {
    /** No entries: the group and other classes of the mode decide. */
    ExtendedAccess NONE = caller -> -1;

    /**
     * The rwx bits (4, 2, 1) {@code caller}, who is not the owner, is granted (named user, owning group,
     * named groups, each limited by the mask; else other), or -1 when there are no entries.
     */
    int permitted(Caller caller);

    /**
     * Whether {@code caller}, who is not the owner, has every bit of {@code want}: 1 or 0, or -1 when there
     * are no entries. The kernel's posix_acl_permission grants a set of bits only through one entry that
     * holds them all (a caller in two named groups, one granting r and one w, may not open for rw), which
     * no single {@link #permitted} value can say: an ACL overrides this; the default goes by permitted.
     */
    default int permits(Caller caller, int want) {
        int bits = permitted(caller);
        return bits < 0 ? -1 : (bits & want) == want ? 1 : 0;
    }
}
