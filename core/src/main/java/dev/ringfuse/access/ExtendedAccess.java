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
}
