package dev.ringfuse.access;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's permission rules, for filesystems mounted without {@code default_permissions} (the kernel
 * then checks only that a regular file has some execute bit before exec). Each check throws
 * {@link FuseException} with the errno the kernel's own code returns for the same call: EACCES for a
 * missing permission bit, EPERM for a missing ownership or capability. Root (uid 0) stands for the
 * capabilities root has, as a FUSE server cannot see capabilities.
 */
public final class Permissions {
    /** Permission masks as access(2) spells them. */
    public static final int R = 4, W = 2, X = 1;
    private static final int S_ISUID = 04000, S_ISGID = 02000, S_ISVTX = 01000, S_IXGRP = 010, S_IXUGO = 0111;
    private static final int O_ACCMODE = 3, O_WRONLY = 1, O_RDWR = 2, O_TRUNC = 01000;
    /** __FMODE_EXEC: the kernel's open for execve(2) carries it in the open flags. */
    private static final int FMODE_EXEC = 0x20;
    private static final boolean PROTECTED_HARDLINKS = sysctl("fs/protected_hardlinks");

    private Permissions() {}

    /** generic_permission: whether {@code c} has every bit of {@code mask} (R, W, X) on {@code s}. */
    public static boolean may(Caller c, Subject s, int mask) {
        mask &= 7;
        int mode = s.mode();
        int bits;
        if (c.uid() == s.uid()) {
            bits = mode >> 6;
        } else {
            int acl = (mode & 070) != 0 ? s.extra().permits(c, mask) : -1;
            if (acl == 1) return true;
            if (acl == 0) bits = 0;
            else bits = c.inGroup(s.gid()) ? mode >> 3 : mode;
        }
        if ((bits & mask) == mask) return true;
        // CAP_DAC_OVERRIDE: read and write always; execute if anyone may, or any directory search
        return c.isRoot() && ((mask & X) == 0 || s.isDirectory() || (mode & S_IXUGO) != 0);
    }

    /** {@link #may}, or EACCES. */
    public static void check(Caller c, Subject s, int mask) {
        if (!may(c, s, mask)) throw new FuseException(Errno.EACCES);
    }

    /** inode_owner_or_capable: the owner, or root (CAP_FOWNER). */
    public static boolean owns(Caller c, Subject s) {
        return c.uid() == s.uid() || c.isRoot();
    }

    /**
     * Whether a REMOVEXATTR of {@code security.capability} from {@code c} may be carried out. With
     * HANDLE_KILLPRIV_V2 the kernel's own capability kill (cap_inode_killpriv, unchecked) reaches the server for
     * a write, truncate or chown by a caller without CAP_FSETID, and fuse_setattr strips ATTR_MODE before the
     * owner check, so a stranger's chown(f, -1, -1) of a set-ID file reaches it too (natively refused): the
     * owner, a writer or root may; anyone else gets EPERM and the file keeps its capability. (A caller holding
     * CAP_SETFCAP over a file it neither owns nor may write is refused here too: fails closed.)
     */
    public static boolean mayDropCapability(Caller c, Subject s) {
        return owns(c, s) || may(c, s, W);
    }

    /** The extended attribute {@link #mayDropCapability} is about. */
    public static final String SECURITY_CAPABILITY = "security.capability";

    /** {@link #owns}, or EPERM. */
    public static void checkOwner(Caller c, Subject s) {
        if (!owns(c, s)) throw new FuseException(Errno.EPERM);
    }

    /**
     * open(2) of an existing file: read and/or write from the access mode, write for O_TRUNC, execute for
     * the kernel's open on behalf of execve.
     */
    public static void checkOpen(Caller c, Subject s, int flags) {
        int acc = flags & O_ACCMODE;
        int mask = acc == O_WRONLY ? W : acc == O_RDWR ? R | W : R;
        if ((flags & O_TRUNC) != 0) mask |= W;
        if ((flags & FMODE_EXEC) != 0) mask |= X;
        check(c, s, mask);
    }

    /** Adding a name to directory {@code dir} (create, mknod, mkdir, symlink, link, rename target). */
    public static void checkAddName(Caller c, Subject dir) {
        check(c, dir, W | X);
    }

    /**
     * may_delete: removing (or renaming away, or replacing) {@code victim} in {@code dir}: write and search
     * on the directory, and in a sticky directory only the file's owner, the directory's owner or root.
     */
    public static void checkDelete(Caller c, Subject dir, Subject victim) {
        check(c, dir, W | X);
        if ((dir.mode() & S_ISVTX) != 0 && c.uid() != victim.uid() && c.uid() != dir.uid() && !c.isRoot()) {
            throw new FuseException(Errno.EPERM);
        }
    }

    /**
     * rename(2) of a directory to another parent rewrites its "..": write permission on the directory
     * itself (may_rename).
     */
    public static void checkReparent(Caller c, Subject movedDir) {
        if (movedDir.isDirectory()) check(c, movedDir, W);
    }

    /**
     * chmod(2): only the owner or root; a caller outside the file's group (and not root) loses S_ISGID
     * silently, as setattr_prepare does. Returns the permission bits to store.
     */
    public static int chmod(Caller c, Subject s, int newMode) {
        checkOwner(c, s);
        int m = newMode & 07777;
        if (!c.isRoot() && !c.inGroup(s.gid())) m &= ~S_ISGID;
        return m;
    }

    /**
     * A mode change that only takes away set-user-ID and set-group-ID, which the kernel sends for a caller
     * who writes or truncates (FUSE without HANDLE_KILLPRIV): allowed to anyone who may write the file.
     */
    public static boolean isPrivilegeKill(Subject s, int newMode) {
        int old = s.mode() & 07777, now = newMode & 07777;
        return old != now && ((old ^ now) & ~(S_ISUID | S_ISGID)) == 0 && (now & ~old) == 0;
    }

    /**
     * The mode after a change by a caller without CAP_FSETID (a write, a truncate, a chown: the kernel's
     * WRITE_KILL_SUIDGID or {@code FATTR_KILL_SUIDGID}), as tmpfs decides (file_remove_privs,
     * setattr_should_drop_sgid): set-user-ID goes; set-group-ID goes when the file is group-executable or
     * the caller is outside its group. {@code callerInGroup} (supplementary groups count, root is a member;
     * it may read /proc) is asked only when it decides.
     */
    public static int killedMode(int mode, java.util.function.BooleanSupplier callerInGroup) {
        if ((mode & S_ISGID) == 0) return mode & ~S_ISUID;
        mode &= ~S_ISUID;
        return (mode & S_IXGRP) != 0 || !callerInGroup.getAsBoolean() ? mode & ~S_ISGID : mode;
    }

    /**
     * chown(2) (chown_ok, chgrp_ok); -1 leaves a field alone. Changing the owner needs root; changing the
     * group needs the owner changing to one of its own groups, or root. EPERM otherwise.
     */
    public static void checkChown(Caller c, Subject s, int newUid, int newGid) {
        if (c.isRoot()) return;
        if (newUid != -1 && (newUid != s.uid() || c.uid() != s.uid())) throw new FuseException(Errno.EPERM);
        if (newGid != -1 && (c.uid() != s.uid() || (newGid != s.gid() && !c.inGroup(newGid)))) {
            throw new FuseException(Errno.EPERM);
        }
    }

    /**
     * utimensat(2): setting both times to now needs ownership or write permission (EACCES); setting an
     * explicit time, or only one of them, needs ownership (EPERM).
     */
    public static void checkUtimens(Caller c, Subject s, boolean bothNow) {
        if (owns(c, s)) return;
        if (!bothNow) throw new FuseException(Errno.EPERM);
        check(c, s, W);
    }

    /** truncate(2) by name, or O_TRUNC through a descriptor not open for writing: write permission. */
    public static void checkTruncate(Caller c, Subject s) {
        check(c, s, W);
    }

    /**
     * xattr_permission and the capability rules behind it, for get ({@code write} false) and set/remove:
     * trusted.* is root's (others: EPERM to write, ENODATA to read); security.* and system.* are readable by
     * all, writable by root (system.posix_acl_* by the owner too); user.* only on regular files and
     * directories (EPERM / ENODATA), not by a non-owner in a sticky directory (EPERM), with read or write
     * permission. Other namespaces are left to the filesystem.
     */
    public static void checkXattr(Caller c, Subject s, String name, boolean write) {
        if (name.startsWith("trusted.")) {
            if (!c.isRoot()) throw new FuseException(write ? Errno.EPERM : Errno.ENODATA);
        } else if (name.startsWith("security.")) {
            if (write && !c.isRoot()) throw new FuseException(Errno.EPERM);
        } else if (name.startsWith("system.")) {
            if (write && !(name.startsWith("system.posix_acl_") && owns(c, s)) && !c.isRoot()) {
                throw new FuseException(Errno.EPERM);
            }
        } else if (name.startsWith("user.")) {
            if (!s.isRegular() && !s.isDirectory()) throw new FuseException(write ? Errno.EPERM : Errno.ENODATA);
            if (write && s.isDirectory() && (s.mode() & S_ISVTX) != 0 && !owns(c, s)) throw new FuseException(Errno.EPERM);
            check(c, s, write ? W : R);
        }
    }

    /** listxattr(2) shows trusted.* names to root only. */
    public static boolean listable(Caller c, String name) {
        return c.isRoot() || !name.startsWith("trusted.");
    }

    /**
     * may_linkat with fs.protected_hardlinks (read from the sysctl once): a hard link to someone else's
     * file needs a regular, non-set-ID file the caller may read and write, else EPERM.
     */
    public static void checkLink(Caller c, Subject s) {
        if (!PROTECTED_HARDLINKS || owns(c, s)) return;
        int mode = s.mode();
        boolean safe = s.isRegular() && (mode & S_ISUID) == 0 && (mode & (S_ISGID | S_IXGRP)) != (S_ISGID | S_IXGRP)
                && may(c, s, R | W);
        if (!safe) throw new FuseException(Errno.EPERM);
    }

    /**
     * A sysctl's value is not 0. Read by lines: a sysctl file reports size 0 and {@code Files.readString} returns
     * only its first byte (JDK 25 on Linux 6.18: "2" of fs.fuse.max_pages_limit's "256"), which a one-digit
     * setting survives and a longer one would not.
     */
    private static boolean sysctl(String name) {
        try {
            return !Files.readAllLines(Path.of("/proc/sys/" + name)).get(0).trim().equals("0");
        } catch (Exception e) {
            return true;
        }
    }
}
