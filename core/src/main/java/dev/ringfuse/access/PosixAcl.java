package dev.ringfuse.access;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One POSIX ACL: its entries in the kernel's canonical order. Immutable; every change returns a new ACL.
 *
 * <p>A filesystem that negotiates {@link dev.ringfuse.lowlevel.Capability#POSIX_ACL} (the kernel then enforces
 * ACLs and caches them) keeps them as the xattrs {@link #ACCESS} and {@link #DEFAULT} and does three things the
 * kernel leaves to it: {@link #set} when one of them is set (validation, the mode following the ACL),
 * {@link #afterChmod} on chmod, and {@link #inherit} when it creates an inode (with
 * {@link dev.ringfuse.lowlevel.Capability#DONT_MASK}, so that a default ACL can replace the umask).
 *
 * @param entries USER_OBJ, USER..., GROUP_OBJ, GROUP..., MASK?, OTHER, as {@link #parse} checked them
 */
public record PosixAcl(List<Entry> entries) {
    /** The xattr of a node's access ACL. */
    public static final String ACCESS = "system.posix_acl_access";
    /** The xattr of a directory's default ACL, which new nodes in it inherit. */
    public static final String DEFAULT = "system.posix_acl_default";
    /** Entry tag: the owner ({@code user::}). */
    public static final int USER_OBJ = 0x01;
    /** Entry tag: a named user ({@code user:ID:}). */
    public static final int USER = 0x02;
    /** Entry tag: the owning group ({@code group::}). */
    public static final int GROUP_OBJ = 0x04;
    /** Entry tag: a named group ({@code group:ID:}). */
    public static final int GROUP = 0x08;
    /** Entry tag: the mask, the most a named entry or the owning group grants. */
    public static final int MASK = 0x10;
    /** Entry tag: everyone else ({@code other::}). */
    public static final int OTHER = 0x20;
    private static final int VERSION = 2;
    private static final int S_ISGID = 02000;
    private static final int UNDEFINED_ID = -1;

    /** One entry: tag, permission bits (rwx = 4|2|1), and the uid or gid for USER and GROUP entries. */
    public record Entry(int tag, int perm, int id) {}

    /** An ACL of {@code entries} as given (not validated: {@link #parse} validates). */
    public PosixAcl {
        entries = List.copyOf(entries);
    }

    /** True for the two ACL xattrs, {@link #ACCESS} and {@link #DEFAULT}. */
    public static boolean isAcl(String name) {
        return name.equals(ACCESS) || name.equals(DEFAULT);
    }

    /**
     * What setting the ACL xattr {@code name} to {@code value} does to an inode of mode {@code mode}
     * (type bits included): {@link #DEFAULT} is for directories only (EACCES otherwise, as the VFS says) and
     * leaves the mode; {@link #ACCESS} sets the permission bits (group = the mask), and one that says no more
     * than a mode is not stored, only its mode (as the VFS drops it). setgid goes unless {@code keepSetgid}
     * (the caller is root or in the file's group: the kernel's FUSE_SETXATTR_ACL_KILL_SGID does not reach
     * the filesystem API, so the filesystem asks, e.g. {@code Caller.of(ctx).inGroup(gid)}).
     * EINVAL for a value the kernel would refuse.
     */
    public static Update set(String name, byte[] value, int mode, boolean directory, boolean keepSetgid) {
        PosixAcl acl = parse(value);
        if (name.equals(DEFAULT)) {
            if (!directory) throw new FuseException(Errno.EACCES);
            return new Update(mode, acl.toXattr());
        }
        int m = acl.applyTo(mode);
        if (!keepSetgid) m &= ~S_ISGID;
        return new Update(m, acl.isModeOnly() ? null : acl.toXattr());
    }

    /**
     * What {@link #set} decided: the inode's new mode, and the value to store under the name, or null to remove
     * the xattr (an access ACL equal to its mode).
     */
    public record Update(int mode, byte[] value) {}

    /** The access ACL value {@code access} after a chmod to {@code mode} ({@code posix_acl_chmod}, see {@link #chmod(int)}). */
    public static byte[] afterChmod(byte[] access, int mode) {
        return parse(access).chmod(mode).toXattr();
    }

    /**
     * The mode and ACLs of a new inode in a directory whose default ACL is {@code parentDefault} (null: none),
     * created with {@code mode} (type bits kept) by a caller whose umask is {@code umask}: with a default ACL it
     * replaces the umask and limits the mode ({@code posix_acl_create}), and directories inherit the default ACL
     * itself; without one the umask applies. Symlinks get neither (do not call this for them).
     */
    public static Inherited inherit(byte[] parentDefault, int mode, int umask, boolean directory) {
        if (parentDefault == null) return new Inherited(mode & ~(umask & 0777), null, null);
        Created c = parse(parentDefault).create(mode & 07777);
        return new Inherited((mode & ~07777) | c.mode(), c.access() == null ? null : c.access().toXattr(),
                directory ? parentDefault : null);
    }

    /**
     * What {@link #inherit} decided: the new inode's mode, and its {@link #ACCESS} and {@link #DEFAULT} values
     * (null: none).
     */
    public record Inherited(int mode, byte[] access, byte[] dflt) {}

    /**
     * Decodes and validates an xattr value as the kernel does ({@code posix_acl_from_xattr} +
     * {@code posix_acl_valid}): EINVAL for a wrong version, a size that is not a whole number of entries, no
     * entries, an unknown tag, permission bits beyond rwx, entries out of order, a duplicate id, or a missing
     * mask where named entries need one.
     */
    public static PosixAcl parse(byte[] value) {
        if (value.length < 4 || (value.length - 4) % 8 != 0 || value.length == 4) throw new FuseException(Errno.EINVAL);
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt() != VERSION) throw new FuseException(Errno.EINVAL);
        List<Entry> es = new ArrayList<>();
        while (b.hasRemaining()) {
            int tag = b.getShort() & 0xffff, perm = b.getShort() & 0xffff, id = b.getInt();
            boolean named = tag == USER || tag == GROUP;
            if (tag != USER_OBJ && tag != OTHER && tag != GROUP_OBJ && tag != MASK && !named) {
                throw new FuseException(Errno.EINVAL);
            }
            es.add(new Entry(tag, perm, named ? id : UNDEFINED_ID));
        }
        PosixAcl acl = new PosixAcl(es);
        acl.validate();
        return acl;
    }

    private void validate() {
        int state = USER_OBJ;
        boolean named = false, mask = false;
        long lastId = -1;
        for (Entry e : entries) {
            if ((e.perm & ~7) != 0) throw new FuseException(Errno.EINVAL);
            switch (e.tag) {
                case USER_OBJ -> {
                    if (state != USER_OBJ) throw new FuseException(Errno.EINVAL);
                    state = USER;
                    lastId = -1;
                }
                case USER, GROUP -> {
                    if (state != e.tag) throw new FuseException(Errno.EINVAL);
                    long id = e.id & 0xffffffffL;
                    if (id <= lastId) throw new FuseException(Errno.EINVAL);
                    lastId = id;
                    named = true;
                }
                case GROUP_OBJ -> {
                    if (state != USER) throw new FuseException(Errno.EINVAL);
                    state = GROUP;
                    lastId = -1;
                }
                case MASK -> {
                    if (state != GROUP) throw new FuseException(Errno.EINVAL);
                    state = OTHER;
                    mask = true;
                }
                case OTHER -> {
                    if (state != OTHER && !(state == GROUP && !named)) throw new FuseException(Errno.EINVAL);
                    state = 0;
                }
                default -> throw new FuseException(Errno.EINVAL);
            }
        }
        if (state != 0 || (named && !mask)) throw new FuseException(Errno.EINVAL);
    }

    /** The xattr value: version 2, then each entry (tag u16, perm u16, id u32, little-endian). */
    public byte[] toXattr() {
        ByteBuffer b = ByteBuffer.allocate(4 + 8 * entries.size()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(VERSION);
        for (Entry e : entries) b.putShort((short) e.tag).putShort((short) e.perm).putInt(e.id);
        return b.array();
    }

    /** The three-entry ACL a mode stands for. */
    public static PosixAcl fromMode(int mode) {
        return new PosixAcl(List.of(new Entry(USER_OBJ, (mode >> 6) & 7, UNDEFINED_ID),
                new Entry(GROUP_OBJ, (mode >> 3) & 7, UNDEFINED_ID), new Entry(OTHER, mode & 7, UNDEFINED_ID)));
    }

    /** True if the ACL says no more than a mode does (three entries): it is then not stored, only the mode. */
    public boolean isModeOnly() {
        return entries.size() == 3;
    }

    /**
     * The permission bits of {@code mode} (file type and suid/sgid/sticky kept) as this ACL sets them: owner
     * from USER_OBJ, group from MASK if present (else GROUP_OBJ), other from OTHER ({@code posix_acl_equiv_mode}
     * / {@code posix_acl_update_mode}).
     */
    public int applyTo(int mode) {
        int u = 0, g = 0, o = 0, m = -1;
        for (Entry e : entries) {
            switch (e.tag) {
                case USER_OBJ -> u = e.perm;
                case GROUP_OBJ -> g = e.perm;
                case MASK -> m = e.perm;
                case OTHER -> o = e.perm;
                default -> { }
            }
        }
        return (mode & ~0777) | u << 6 | (m >= 0 ? m : g) << 3 | o;
    }

    /** chmod: owner, mask (or group when there is no mask) and other take the new mode's bits ({@code posix_acl_chmod}). */
    public PosixAcl chmod(int mode) {
        boolean hasMask = entries.stream().anyMatch(e -> e.tag == MASK);
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            int p = switch (e.tag) {
                case USER_OBJ -> (mode >> 6) & 7;
                case MASK -> (mode >> 3) & 7;
                case GROUP_OBJ -> hasMask ? e.perm : (mode >> 3) & 7;
                case OTHER -> mode & 7;
                default -> e.perm;
            };
            out.add(new Entry(e.tag, p, e.id));
        }
        return new PosixAcl(out);
    }

    /**
     * A new inode in a directory whose default ACL is this one ({@code posix_acl_create_masq}): the ACL the inode
     * gets, with owner, mask-or-group and other limited by the requested {@code mode}, and the mode limited by
     * the ACL. The umask does not apply (the default ACL replaces it).
     */
    public Created create(int mode) {
        boolean hasMask = entries.stream().anyMatch(e -> e.tag == MASK);
        int newMode = mode;
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            int p = e.perm;
            switch (e.tag) {
                case USER_OBJ -> {
                    p &= (mode >> 6) & 7;
                    newMode &= (p << 6) | ~0700;
                }
                case OTHER -> {
                    p &= mode & 7;
                    newMode &= p | ~07;
                }
                case MASK -> {
                    p &= (mode >> 3) & 7;
                    newMode &= (p << 3) | ~070;
                }
                case GROUP_OBJ -> {
                    if (!hasMask) {
                        p &= (mode >> 3) & 7;
                        newMode &= (p << 3) | ~070;
                    }
                }
                default -> { }
            }
            out.add(new Entry(e.tag, p, e.id));
        }
        PosixAcl acl = new PosixAcl(out);
        return new Created(newMode, acl.isModeOnly() ? null : acl);
    }

    /** What {@link #create} gives: the new mode and the access ACL (null when the mode says it all). */
    public record Created(int mode, PosixAcl access) {}

    /**
     * The access check of {@code posix_acl_permission}: may a caller with {@code uid}, primary {@code gid} and
     * supplementary {@code groups} have {@code want} (rwx bits) on an inode owned by {@code ownerUid}:{@code ownerGid}
     * carrying this access ACL? Root's bypass (CAP_DAC_OVERRIDE) is the caller's business.
     */
    public boolean permits(int uid, int gid, int[] groups, int ownerUid, int ownerGid, int want) {
        want &= 7;
        int mask = 7;
        for (Entry e : entries) if (e.tag == MASK) mask = e.perm;
        boolean groupFound = false;
        for (Entry e : entries) {
            switch (e.tag) {
                case USER_OBJ -> {
                    if (uid == ownerUid) return (e.perm & want) == want;
                }
                case USER -> {
                    if (uid == e.id) return (e.perm & mask & want) == want;
                }
                case GROUP_OBJ, GROUP -> {
                    int g = e.tag == GROUP_OBJ ? ownerGid : e.id;
                    if (inGroup(g, gid, groups)) {
                        groupFound = true;
                        if ((e.perm & mask & want) == want) return true;
                    }
                }
                case OTHER -> {
                    return !groupFound && (e.perm & want) == want;
                }
                default -> { }
            }
        }
        return false;
    }

    private static boolean inGroup(int g, int gid, int[] groups) {
        if (g == gid) return true;
        for (int x : groups) if (x == g) return true;
        return false;
    }

    /**
     * The access ACL {@code value} of an inode owned by {@code uid}:{@code gid}, for a filesystem's own
     * permission checks: {@code posix_acl_permission}, consulted by {@link Permissions} as the kernel's check_acl
     * is (non-owners, mode with group bits). {@link ExtendedAccess#NONE} for null.
     */
    public static ExtendedAccess access(byte[] value, int uid, int gid) {
        if (value == null) return ExtendedAccess.NONE;
        PosixAcl acl = parse(value);
        return new ExtendedAccess() {
            @Override
            public int permitted(Caller c) {
                int bits = 0;
                for (int b = 4; b > 0; b >>= 1) if (acl.permits(c.uid(), c.gid(), c.groups(), uid, gid, b)) bits |= b;
                return bits;
            }

            @Override
            public int permits(Caller c, int want) {
                return acl.permits(c.uid(), c.gid(), c.groups(), uid, gid, want) ? 1 : 0;
            }
        };
    }
}
