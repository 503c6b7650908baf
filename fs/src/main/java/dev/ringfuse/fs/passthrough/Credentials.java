package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.Caller;
import dev.ringfuse.lowlevel.RequestContext;
import java.lang.foreign.Arena;

/**
 * Runs a call on the source as the caller: fsuid, fsgid and supplementary groups of the calling thread
 * only, restored in {@link #close}. Linux keeps credentials per thread; glibc's setfsuid/setfsgid touch
 * only the calling thread, but glibc's setgroups changes every thread of the process, so the groups are
 * set with the raw system call. A non-zero fsuid drops the filesystem capabilities (CAP_CHOWN,
 * CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_FSETID, ...) from the thread, so the source filesystem makes every
 * check the kernel would make for the caller, with the caller's groups: permission bits, ACLs, sticky
 * directories, chmod/chown/utimens rules, and the clearing of set-user-ID on truncate, fallocate and
 * copy_file_range. CAP_SYS_ADMIN and CAP_SETFCAP stay: trusted.* and security.* are checked in
 * {@link PassthroughFs} instead. The supplementary groups are read as libfuse's fuse_req_getgroups reads
 * them ({@code /proc/PID/task/PID/status}); a caller that has exited has none.
 *
 * <p>Callbacks run on the transport's platform threads, one request at a time per thread; a switch
 * never outlives its call. Only synchronous system calls run under it: I/O submitted to an io_uring may
 * be executed by kernel workers with other credentials, so no permission-relevant call goes through a ring.
 */
final class Credentials implements AutoCloseable {
    private static final Credentials NONE = new Credentials(-1, -1, null);
    private static final boolean ROOT = dev.ringfuse.sys.Libc.geteuid() == 0;
    /** The server's own supplementary groups, restored after each switch (the same on every thread). */
    private static final int[] SERVER_GROUPS = ROOT ? Caller.groupsOf(ProcessHandle.current().pid()) : new int[0];

    private final int restoreUid, restoreGid;
    private final int[] restoreGroups;

    private Credentials(int restoreUid, int restoreGid, int[] restoreGroups) {
        this.restoreUid = restoreUid;
        this.restoreGid = restoreGid;
        this.restoreGroups = restoreGroups;
    }

    /** Whether calls can run as their callers: only a server running as root may switch credentials. */
    static boolean canSwitch() {
        return ROOT;
    }

    /** Switches the thread's filesystem ids and groups to the caller's, if we may and they differ. */
    static Credentials of(RequestContext ctx) {
        if (!ROOT || (ctx.uid() == 0 && ctx.gid() == 0)) return NONE;
        // an id the kernel could not map: setfsuid(-1) would leave the thread root, so refuse instead
        if (ctx.uid() == -1 || ctx.gid() == -1) throw new FuseException(Errno.EACCES);
        int[] groups = null;
        if (ctx.uid() != 0) { // root's checks do not depend on its groups
            groups = Caller.of(ctx).groups();
            try (Arena a = Arena.ofConfined()) {
                int r = PosixCalls.setgroupsThisThread(groups, a);
                if (r < 0) throw new FuseException(Errno.EPERM);
            }
        }
        // setfsgid needs CAP_SETGID, which a switched fsuid keeps (it drops only the file capabilities)
        int oldGid = PosixCalls.setfsgid(ctx.gid());
        int oldUid = PosixCalls.setfsuid(ctx.uid());
        return new Credentials(oldUid, oldGid, groups == null ? null : SERVER_GROUPS);
    }

    /** As {@link #of}, but only when {@code when}. */
    static Credentials of(RequestContext ctx, boolean when) {
        return when ? of(ctx) : NONE;
    }

    @Override
    public void close() {
        if (this == NONE) return;
        PosixCalls.setfsuid(restoreUid);
        PosixCalls.setfsgid(restoreGid);
        if (restoreGroups != null) {
            try (Arena a = Arena.ofConfined()) {
                PosixCalls.setgroupsThisThread(restoreGroups, a);
            }
        }
    }
}
