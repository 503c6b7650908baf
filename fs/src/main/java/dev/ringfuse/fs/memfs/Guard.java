package dev.ringfuse.fs.memfs;

import dev.ringfuse.access.Caller;
import dev.ringfuse.access.Permissions;
import dev.ringfuse.access.Subject;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;

import static dev.ringfuse.access.Permissions.R;
import static dev.ringfuse.access.Permissions.W;
import static dev.ringfuse.access.Permissions.X;

/**
 * memfs's permission checks for one request on a mount without default_permissions (the kernel then
 * checks nothing, see {@code fs/DESIGN.md}); {@link MemFs} makes one per request only on such mounts, and
 * {@link Namespace} calls the name checks under the directory locks, so the victim of an unlink or rename
 * is the node actually removed. Rules: {@link Permissions}.
 */
final class Guard {
    private final Caller caller;

    Guard(RequestContext ctx) {
        this.caller = Caller.of(ctx);
    }

    Caller caller() { return caller; }

    /** A lookup in {@code dir}: search permission. */
    void search(DirNode dir) {
        Permissions.check(caller, dir.subject(), X);
    }

    /** A new name in {@code dir}. */
    void add(DirNode dir) {
        Permissions.checkAddName(caller, dir.subject());
    }

    /** {@code victim} loses its name in {@code dir} (unlink, rmdir, rename source or replaced target). */
    void remove(DirNode dir, Inode victim) {
        Permissions.checkDelete(caller, dir.subject(), victim.subject());
    }

    /** A directory moves to another parent: its ".." changes. */
    void reparent(Inode moved) {
        Permissions.checkReparent(caller, moved.subject());
    }

    void open(Inode n, int flags) {
        Permissions.checkOpen(caller, n.subject(), flags);
    }

    void opendir(DirNode d) {
        Permissions.check(caller, d.subject(), R);
    }

    void link(Inode n, DirNode to) {
        Permissions.checkLink(caller, n.subject());
        add(to);
    }

    boolean access(Inode n, int mask) {
        return Permissions.may(caller, n.subject(), mask);
    }

    void xattr(Inode n, String name, boolean write) {
        Permissions.checkXattr(caller, n.subject(), name, write);
    }

    /**
     * Checks a setattr and returns the permission bits chmod may store (the requested ones, less S_ISGID
     * for a caller outside the group), or -1 without a mode change. A truncation through a handle open for
     * writing needs nothing more (ftruncate); else (truncate(2), O_TRUNC of a read-only open) write
     * permission. The mtime the kernel sends along with a truncation is part of it, not a utimens.
     */
    int setattr(Inode n, SetAttr s, boolean writableHandle) {
        Subject sub = n.subject();
        if (s.hasSize() && !writableHandle) Permissions.checkTruncate(caller, sub);
        if (s.hasUid() || s.hasGid()) {
            Permissions.checkChown(caller, sub, s.hasUid() ? s.uid() : -1, s.hasGid() ? s.gid() : -1);
        }
        if (!s.hasSize() && (s.hasAtime() || s.hasMtime())) {
            Permissions.checkUtimens(caller, sub, s.hasAtime() && s.atimeNow() && s.hasMtime() && s.mtimeNow());
        }
        if (!s.hasMode()) return -1;
        // the kernel's own privilege kill on write or truncate (only sent without HANDLE_KILLPRIV_V2)
        if (Permissions.isPrivilegeKill(sub, s.mode()) && Permissions.may(caller, sub, W)) return s.mode() & 07777;
        return Permissions.chmod(caller, sub, s.mode());
    }
}
