package dev.ringfuse.lowlevel;

/** Who is calling, for one request. */
public interface RequestContext {
    /** The caller's user id (0xffffffff if the idmapped mount cannot map it). */
    int uid();

    /** The caller's group id. */
    int gid();

    /** The caller's thread group id (0 for requests the kernel makes on its own, such as writeback). */
    int pid();

    /**
     * The caller's umask for creating calls (mknod, mkdir, create, tmpfile), else 0. The kernel has already
     * applied it to the mode unless the filesystem asked for {@link Capability#DONT_MASK}.
     */
    int umask();

    /** True once the kernel has asked to interrupt this request (the caller got a signal). */
    boolean interrupted();

    /** The request's unique id, for logs. */
    long unique();
}
