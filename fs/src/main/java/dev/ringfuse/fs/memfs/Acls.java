package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.Caller;
import dev.ringfuse.access.ExtendedAccess;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.lowlevel.RequestContext;

/**
 * POSIX ACLs on memfs inodes (FUSE_POSIX_ACL: the kernel enforces them with default_permissions and caches
 * them; memfs validates, stores, keeps them in step with the mode, and hands default ACLs down). Stored as the
 * xattrs {@link PosixAcl#ACCESS} and {@link PosixAcl#DEFAULT} in the inode's {@link XattrMap}.
 */
final class Acls {
    private static final int S_ISGID = 02000;

    private Acls() {}

    /** The mode and ACLs a new inode gets in {@code dir}. */
    record Inherited(int mode, byte[] access, byte[] dflt) {}

    /**
     * With a default ACL on the parent it replaces the umask and limits the mode ({@code posix_acl_create});
     * without one the umask applies (memfs asks for DONT_MASK, so the kernel leaves that to it).
     * Directories also inherit the default ACL itself; symlinks get nothing (call {@code withoutAcl}).
     */
    static Inherited inherit(DirNode dir, int mode, int umask, boolean directory) {
        byte[] d = dir.xattrs.getOrNull(PosixAcl.DEFAULT);
        if (d == null) return new Inherited(mode & ~(umask & 0777), null, null);
        PosixAcl.Created c = PosixAcl.parse(d).create(mode & 07777);
        int m = (mode & ~07777) | c.mode();
        return new Inherited(m, c.access() == null ? null : c.access().toXattr(), directory ? d : null);
    }

    /** Stores what {@link #inherit} decided on the new inode. */
    static void apply(Inode n, Inherited in, Limits limits) {
        if (in.access() != null) n.xattrs.set(PosixAcl.ACCESS, in.access(), 0, limits);
        if (in.dflt() != null) n.xattrs.set(PosixAcl.DEFAULT, in.dflt(), 0, limits);
    }

    /**
     * setxattr of an ACL. The access ACL sets the mode's permission bits; one that says no more than a mode is
     * not stored (as the VFS drops it). setgid goes when the caller is outside the file's group (supplementary
     * groups read as the permission checks read them, root counts as a member: the flag the kernel sends for
     * this, FUSE_SETXATTR_ACL_KILL_SGID, does not reach the filesystem API). A default ACL is for directories
     * only.
     */
    static void set(Inode n, String name, byte[] value, int flags, RequestContext ctx, Limits limits) {
        PosixAcl acl = PosixAcl.parse(value);
        if (name.equals(PosixAcl.DEFAULT)) {
            if (!n.isDir()) throw new FuseException(Errno.EACCES);
            n.xattrs.set(name, acl.toXattr(), flags, limits);
            return;
        }
        int mode = acl.applyTo(n.mode());
        if (!FileOps.inGroup(ctx, n.gid())) mode &= ~S_ISGID;
        if (acl.isModeOnly()) {
            if ((flags & XattrMap.XATTR_CREATE) != 0 && n.xattrs.getOrNull(name) != null) throw new FuseException(Errno.EEXIST);
            n.xattrs.removeIfPresent(name, limits);
        } else {
            n.xattrs.set(name, acl.toXattr(), flags, limits);
        }
        n.chmod(mode);
    }

    /** chmod rewrites the access ACL's owner, mask-or-group and other entries. */
    static void chmod(Inode n, int mode, Limits limits) {
        byte[] a = n.xattrs.getOrNull(PosixAcl.ACCESS);
        if (a != null) n.xattrs.set(PosixAcl.ACCESS, PosixAcl.parse(a).chmod(mode).toXattr(), 0, limits);
    }

    /**
     * The access ACL {@code value} of an inode owned by {@code uid}:{@code gid}, for memfs's own permission checks
     * (mounts without default_permissions): {@code posix_acl_permission}, consulted by
     * {@link dev.ringfuse.access.Permissions} as the kernel's check_acl is (non-owners, mode with group bits).
     */
    static ExtendedAccess access(byte[] value, int uid, int gid) {
        PosixAcl acl = PosixAcl.parse(value);
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

    static boolean isAcl(String name) {
        return name.equals(PosixAcl.ACCESS) || name.equals(PosixAcl.DEFAULT);
    }
}
