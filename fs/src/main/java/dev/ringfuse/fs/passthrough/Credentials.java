package dev.ringfuse.fs.passthrough;

import dev.ringfuse.lowlevel.RequestContext;

/**
 * Runs a creating call as the caller: setfsuid/setfsgid on the calling thread (credentials are per
 * thread in Linux, and glibc's setfsuid is not broadcast to other threads), restored in {@link #close}.
 * Only the creating calls switch (mknod, mkdir, symlink, create, tmpfile): the new inode then gets the
 * caller's owner and the group the source filesystem chooses (the caller's, or the directory's when it
 * is setgid), with no window in which it belongs to root. Every permission check was already made by the
 * kernel (default_permissions), with the caller's supplementary groups, which a server thread cannot
 * take on; the other calls therefore run with the server's credentials. Callbacks run on the
 * transport's platform threads; a switch never outlives the call that made it.
 */
final class Credentials implements AutoCloseable {
    private static final Credentials NONE = new Credentials(-1, -1);
    private static final boolean ROOT = dev.ringfuse.sys.Libc.geteuid() == 0;

    private final int restoreUid, restoreGid;

    private Credentials(int restoreUid, int restoreGid) {
        this.restoreUid = restoreUid;
        this.restoreGid = restoreGid;
    }

    /** Switches the thread's filesystem ids to the caller's, if we may and they differ. */
    static Credentials of(RequestContext ctx) {
        if (!ROOT || (ctx.uid() == 0 && ctx.gid() == 0)) return NONE;
        // setfsgid needs CAP_SETGID, which a switched fsuid keeps (it drops only the file capabilities)
        int oldGid = PosixCalls.setfsgid(ctx.gid());
        int oldUid = PosixCalls.setfsuid(ctx.uid());
        return new Credentials(oldUid, oldGid);
    }

    @Override
    public void close() {
        if (this == NONE) return;
        PosixCalls.setfsuid(restoreUid);
        PosixCalls.setfsgid(restoreGid);
    }
}
