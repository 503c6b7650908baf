package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.lowlevel.RequestContext;

/**
 * POSIX ACLs on memfs inodes (FUSE_POSIX_ACL: the kernel enforces them with default_permissions and caches
 * them; memfs validates, stores, keeps them in step with the mode, and hands default ACLs down). Stored as the
 * xattrs {@link PosixAcl#ACCESS} and {@link PosixAcl#DEFAULT} in the inode's {@link XattrMap}.
 */
final class Acls {
    private Acls() {}

    /**
     * The mode and ACLs a new inode gets in {@code dir} ({@link PosixAcl#inherit}: a default ACL replaces the
     * umask; memfs asks for DONT_MASK, so the kernel leaves the umask to it). Symlinks get nothing.
     */
    static PosixAcl.Inherited inherit(DirNode dir, int mode, int umask, boolean directory) {
        return PosixAcl.inherit(dir.xattrs.getOrNull(PosixAcl.DEFAULT), mode, umask, directory);
    }

    /** Stores what {@link #inherit} decided on the new inode. */
    static void apply(Inode n, PosixAcl.Inherited in, Limits limits) {
        if (in.access() != null) n.xattrs.set(PosixAcl.ACCESS, in.access(), 0, limits);
        if (in.dflt() != null) n.xattrs.set(PosixAcl.DEFAULT, in.dflt(), 0, limits);
    }

    /**
     * setxattr of an ACL ({@link PosixAcl#set}): the mode follows an access ACL, one that says no more than a mode
     * is not stored. setgid goes when the caller is outside the file's group (supplementary groups read as the
     * permission checks read them, root counts as a member).
     */
    static void set(Inode n, String name, byte[] value, int flags, RequestContext ctx, Limits limits) {
        PosixAcl.Update u = PosixAcl.set(name, value, n.mode(), n.isDir(), FileOps.inGroup(ctx, n.gid()));
        if (u.value() != null) {
            n.xattrs.set(name, u.value(), flags, limits);
        } else {
            if ((flags & XattrMap.XATTR_CREATE) != 0 && n.xattrs.getOrNull(name) != null) throw new FuseException(Errno.EEXIST);
            n.xattrs.removeIfPresent(name, limits);
        }
        n.chmod(u.mode());
    }

    /** chmod rewrites the access ACL's owner, mask-or-group and other entries. */
    static void chmod(Inode n, int mode, Limits limits) {
        byte[] a = n.xattrs.getOrNull(PosixAcl.ACCESS);
        if (a != null) n.xattrs.set(PosixAcl.ACCESS, PosixAcl.afterChmod(a, mode), 0, limits);
    }

    static boolean isAcl(String name) {
        return PosixAcl.isAcl(name);
    }
}
