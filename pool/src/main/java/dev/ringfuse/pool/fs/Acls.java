package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.PosixAcl;
import java.io.IOException;

/**
 * POSIX ACLs of a dataset: the xattrs {@link PosixAcl#ACCESS} and {@link PosixAcl#DEFAULT} in the inode's xattr
 * buckets (so snapshots, send and receive carry them like any xattr). {@link PosixAcl} decides (validation, the
 * mode following the ACL, chmod, inheritance); this class stores. Callers hold the pool lock.
 */
final class Acls {
    private static final byte[] ACCESS = FileNames.encode(PosixAcl.ACCESS), DEFAULT = FileNames.encode(PosixAcl.DEFAULT);

    private Acls() {}

    /** What a new inode of {@code mode} in {@code dir} gets ({@link PosixAcl#inherit}); not for symlinks. */
    static PosixAcl.Inherited inherit(Inodes inodes, Inode dir, int mode, int umask) throws IOException {
        boolean directory = (mode & dev.ringfuse.lowlevel.Attr.S_IFMT) == dev.ringfuse.lowlevel.Attr.S_IFDIR;
        return PosixAcl.inherit(Xattrs.getOrNull(inodes, dir, DEFAULT), mode, umask, directory);
    }

    /** Stores what {@link #inherit} decided on the new inode {@code n}. */
    static void apply(Inodes inodes, Inode n, PosixAcl.Inherited in) throws IOException {
        if (in.access() != null) Xattrs.set(inodes, n, ACCESS, in.access(), 0);
        if (in.dflt() != null) Xattrs.set(inodes, n, DEFAULT, in.dflt(), 0);
    }

    /**
     * setxattr of an ACL ({@link PosixAcl#set}): an access ACL sets the mode, and one that says no more than a
     * mode is not stored (an old one is removed). {@code keepSetgid}: the caller is root or in the file's group.
     */
    static void set(Inodes inodes, Inode n, String name, byte[] value, int flags, boolean keepSetgid) throws IOException {
        PosixAcl.Update u = PosixAcl.set(name, value, n.mode, n.isDir(), keepSetgid);
        byte[] nm = FileNames.encode(name);
        if (u.value() != null) {
            Xattrs.set(inodes, n, nm, u.value(), flags);
        } else if (Xattrs.getOrNull(inodes, n, nm) != null) {
            if ((flags & Xattrs.XATTR_CREATE) != 0) throw new FuseException(Errno.EEXIST);
            Xattrs.remove(inodes, n, nm);
        }
        n.mode = u.mode();
        n.touchTimes(false, true);
        inodes.put(n);
    }

    /** chmod of {@code n} to {@code mode}: its access ACL, if any, takes the new owner, mask-or-group and other bits. */
    static void chmod(Inodes inodes, Inode n, int mode) throws IOException {
        byte[] a = Xattrs.getOrNull(inodes, n, ACCESS);
        if (a != null) Xattrs.set(inodes, n, ACCESS, PosixAcl.afterChmod(a, mode), 0);
    }

    /** {@code n}'s owner, group, mode and access ACL, for a permission the pool decides itself. */
    static dev.ringfuse.access.Subject subject(Inodes inodes, Inode n) throws IOException {
        return new dev.ringfuse.access.Subject(n.mode, n.uid, n.gid,
                PosixAcl.access(Xattrs.getOrNull(inodes, n, ACCESS), n.uid, n.gid));
    }
}
