package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.fs.passthrough.Inodes.Inode;
import dev.ringfuse.lowlevel.RequestContext;

/**
 * POSIX ACLs over a source that has them (FUSE_POSIX_ACL + DONT_MASK). The ACL xattrs go to the source, whose
 * own VFS keeps mode and ACL in step (setfacl sets the mode, chmod rewrites the mask). What the server must
 * get right is creation: the kernel sends the caller's unmasked mode and its umask, and the source inherits a
 * default ACL only if it is handed that unmasked mode — with a default ACL on the parent the umask does not
 * apply (the source ignores the server's own umask then too); without one the server applies the caller's
 * umask and later restores bits its own umask cut.
 */
final class SourceAcls {
    private SourceAcls() {}

    /** The mode to create with, and whether the parent's default ACL decides the result (no restoring chmod). */
    record Create(int mode, boolean inherits) {}

    static Create create(boolean acl, RequestContext ctx, Inode parent, int mode) {
        if (!acl) return new Create(mode, false);
        if (hasDefault(parent)) return new Create(mode, true);
        return new Create(mode & ~(ctx.umask() & 0777), false);
    }

    private static boolean hasDefault(Inode dir) {
        try {
            Xattrs.get(dir, PosixAcl.DEFAULT);
            return true;
        } catch (FuseException e) {
            if (e.errno() == Errno.ENODATA || e.errno() == Errno.EOPNOTSUPP) return false;
            throw e;
        }
    }

    /**
     * The server sets ACLs as root, so the source's VFS never clears setgid for a caller outside the group, as
     * it would for that caller on the source itself: do it here (supplementary groups too; root keeps it).
     */
    static boolean killSgid(RequestContext ctx, String name, int fileGid) {
        return name.equals(PosixAcl.ACCESS) && ctx.uid() != 0 && !dev.ringfuse.access.Caller.of(ctx).inGroup(fileGid);
    }
}
