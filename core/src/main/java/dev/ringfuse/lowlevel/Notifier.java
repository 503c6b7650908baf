package dev.ringfuse.lowlevel;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * Messages the filesystem sends to the kernel on its own initiative. They travel over /dev/fuse even when
 * requests use io_uring.
 *
 * <p><b>Deadlock rule.</b> Never send {@code invalEntry}, {@code delete} or {@code invalInode} from inside
 * the handler of a related request (for the parent: lookup, symlink, mknod, mkdir, unlink, rename, link,
 * create; for the inode: setattr, unlink, rmdir, rename, setxattr, removexattr, readdir), nor while
 * holding a lock such a handler needs: send them from another thread.
 *
 * <p>The invalidations return false when the kernel had nothing cached for the node or name (ENOENT),
 * which is not an error. Every method throws {@link IOException} with the errno the kernel returned for a
 * real failure, and ENOTCONN once unmounted.
 */
public interface Notifier {
    /** Drops cached attributes and, for {@code offset >= 0}, cached data from offset for len (0 = to EOF). */
    boolean invalInode(long nodeid, long offset, long length) throws IOException;

    /** Drops the cached name {@code name} in {@code parent}. */
    boolean invalEntry(long parent, String name) throws IOException;

    /** Marks the cached name as expired only, without dropping it. */
    boolean expireEntry(long parent, String name) throws IOException;

    /** Tells the kernel {@code name} in {@code parent}, which was {@code child}, is gone. */
    boolean delete(long parent, long child, String name) throws IOException;

    /** Puts {@code data} into the page cache of {@code nodeid} at {@code offset}. */
    void store(long nodeid, long offset, MemorySegment data) throws IOException;

    /** Asks the kernel for cached data of {@code nodeid}; completes with the bytes it had. */
    CompletableFuture<byte[]> retrieve(long nodeid, long offset, int size) throws IOException;

    /** Wakes pollers waiting on the poll handle {@code kh}. */
    void pollWakeup(long kh) throws IOException;

    /**
     * Registers {@code fd} as a kernel passthrough backing file (needs CAP_SYS_ADMIN and negotiated
     * {@link Capability#PASSTHROUGH}); returns the backing id for an open reply.
     */
    int openBacking(int fd) throws IOException;

    /** Releases a backing id; open files that use it keep their own reference. */
    void closeBacking(int backingId) throws IOException;
}
