package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.PosixAcl;
import dev.ringfuse.lowlevel.RequestContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * POSIX ACLs (FUSE_POSIX_ACL: the kernel enforces them with default_permissions and caches them) kept as the
 * {@code xattrs} rows {@link PosixAcl#ACCESS} and {@link PosixAcl#DEFAULT}, by core's {@link PosixAcl} rules,
 * as memfs keeps them: validated on set, the access ACL and the mode in step both ways, default ACLs handed
 * down to new nodes. Every call runs inside the caller's transaction.
 */
final class Acls {
    private static final int S_ISGID = 02000;
    static final String ACCESS = PosixAcl.ACCESS, DEFAULT = PosixAcl.DEFAULT;

    private Acls() {}

    static boolean isAcl(String name) {
        return name.equals(PosixAcl.ACCESS) || name.equals(PosixAcl.DEFAULT);
    }

    /** The mode and ACLs a new node gets (ACL xattr values, null for none). */
    record Inherited(int mode, byte[] access, byte[] dflt) {}

    /**
     * What a new node in a directory whose default ACL is {@code parentDefault} (null: none) gets: the default
     * ACL limits the requested mode and replaces the umask ({@code posix_acl_create}); without one the umask
     * applies (the mount asks for DONT_MASK, so the kernel leaves it to the filesystem). Directories inherit the
     * default ACL itself. {@code umask < 0}: ACLs are not negotiated and the kernel applied the umask already.
     */
    static Inherited inherit(byte[] parentDefault, int mode, int umask, boolean directory) {
        if (umask < 0) return new Inherited(mode, null, null);
        if (parentDefault == null) return new Inherited(mode & ~(umask & 0777), null, null);
        PosixAcl.Created c = PosixAcl.parse(parentDefault).create(mode & 07777);
        return new Inherited((mode & ~07777) | c.mode(), c.access() == null ? null : c.access().toXattr(),
                directory ? parentDefault : null);
    }

    /** Stores the ACLs {@link #inherit} gave the new node {@code ino}. */
    static void apply(Connection c, long ino, Inherited in) throws SQLException {
        if (in.access() != null) Xattrs.put(c, ino, PosixAcl.ACCESS, in.access());
        if (in.dflt() != null) Xattrs.put(c, ino, PosixAcl.DEFAULT, in.dflt());
    }

    /**
     * setxattr of an ACL on {@code n}. The access ACL sets the mode's permission bits (group = the mask); one
     * that says no more than a mode is not stored (the VFS drops it too). setgid goes when the caller is neither
     * root nor in the file's group (the kernel's FUSE_SETXATTR_ACL_KILL_SGID flag does not reach the
     * filesystem API). A default ACL is for directories only (EACCES, as the VFS answers). The caller checks
     * XATTR_CREATE/XATTR_REPLACE and moves ctime.
     */
    static void set(Connection c, Node n, String name, byte[] value, RequestContext ctx) throws SQLException {
        PosixAcl acl = PosixAcl.parse(value);
        if (name.equals(PosixAcl.DEFAULT)) {
            if (!n.isDir()) throw new FuseException(Errno.EACCES);
            Xattrs.put(c, n.ino(), name, acl.toXattr());
            return;
        }
        int mode = acl.applyTo(n.mode());
        if (!SqlFileOps.inGroup(ctx, n.gid())) mode &= ~S_ISGID;
        if (acl.isModeOnly()) {
            remove(c, n.ino(), name);
        } else {
            Xattrs.put(c, n.ino(), name, acl.toXattr());
        }
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE inodes SET mode = ? WHERE ino = ?")) {
            ps.setInt(1, mode & 07777);
            ps.setLong(2, n.ino());
            ps.executeUpdate();
        }
    }

    /** chmod rewrites the access ACL's owner, mask-or-group and other entries ({@code posix_acl_chmod}). */
    static void chmod(Connection c, long ino, int mode) throws SQLException {
        byte[] a = get(c, ino, PosixAcl.ACCESS);
        if (a != null) Xattrs.put(c, ino, PosixAcl.ACCESS, PosixAcl.parse(a).chmod(mode).toXattr());
    }

    static byte[] get(Connection c, long ino, String name) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT value FROM xattrs WHERE ino = ? AND name = ?")) {
            ps.setLong(1, ino);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBytes(1) : null;
            }
        }
    }


    private static void remove(Connection c, long ino, String name) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM xattrs WHERE ino = ? AND name = ?")) {
            ps.setLong(1, ino);
            ps.setString(2, name);
            ps.executeUpdate();
        }
    }

    /** The owner, group, mode and access ACL of inode {@code ino}, for a permission sql decides itself. */
    static dev.ringfuse.access.Subject subject(Connection c, long ino) throws SQLException {
        Node n = Store.node(c, ino);
        if (n == null) throw new FuseException(Errno.ENOENT);
        return new dev.ringfuse.access.Subject(n.mode(), n.uid(), n.gid(), PosixAcl.access(get(c, ino, ACCESS), n.uid(), n.gid()));
    }
}
