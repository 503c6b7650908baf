package dev.ringfuse.lowlevel;

import dev.ringfuse.Errno;
import java.lang.foreign.MemorySegment;

/**
 * An inode-based filesystem: the kernel's FUSE requests, one method each. Every method defaults to
 * answering {@code ENOSYS}; for many requests the kernel remembers that and stops asking (flush, fsync,
 * xattrs, access, ...), or falls back (statx to getattr, lseek to generic, copy_file_range to read and
 * write, create to mknod and open).
 *
 * <p>Each method's Javadoc lists its valid replies and its effect on lookup counts. "Lookup +1" means a
 * successful reply with a non-zero node id adds one to that node's lookup count. Errors are always valid.
 * See the package documentation for reply, buffer and threading rules.
 */
public interface LowLevelFileSystem {
    /** The root directory's node id. */
    long ROOT_ID = 1;

    /** Called once the kernel's INIT arrives, before any other request: choose capabilities here. */
    default void init(InitContext init) {}

    /**
     * Whether this filesystem enforces POSIX permissions itself on every request when the mount has no
     * {@code default_permissions} (see {@link dev.ringfuse.access.Permissions}). {@link dev.ringfuse.Fuse#mount}
     * refuses {@code allow_other} without {@code default_permissions} unless this is true: nobody would
     * check anything, and every user could read, write and chmod every file. Default: false.
     */
    default boolean checksPermissions() { return false; }

    /** Called once when the session ends (unmount, or the server is closed). */
    default void destroy() {}

    /** Finds {@code name} in directory {@code parent}. Replies: entry (lookup +1), negative. */
    default void lookup(RequestContext ctx, long parent, String name, EntryReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * The kernel drops {@code nlookup} references to {@code nodeid}; at zero (and no links) the node may be
     * freed. No reply. BATCH_FORGET arrives as one call per node.
     */
    default void forget(long nodeid, long nlookup) {}

    /** Attributes; {@code fh} is the open handle or -1 if none. Replies: attr. */
    default void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) { reply.error(Errno.ENOSYS); }

    /** Changes attributes (chmod, chown, truncate, utimens). Replies: attr (the new attributes). */
    default void setattr(RequestContext ctx, long nodeid, SetAttr changes, AttrReply reply) { reply.error(Errno.ENOSYS); }

    /** Reads a symlink. Replies: target. */
    default void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) { reply.error(Errno.ENOSYS); }

    /** Creates a file node (regular, fifo, socket, device). Replies: entry (lookup +1). */
    default void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) { reply.error(Errno.ENOSYS); }

    /** Creates a directory; {@code mode} has no type bits. Replies: entry (lookup +1). */
    default void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) { reply.error(Errno.ENOSYS); }

    /** Removes a name (not a directory). Replies: ok. Lookup counts unchanged (the kernel forgets later). */
    default void unlink(RequestContext ctx, long parent, String name, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Removes an empty directory. Replies: ok. */
    default void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Creates a symlink {@code name} pointing at {@code target}. Replies: entry (lookup +1). */
    default void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * Renames; {@code flags} may hold RENAME_NOREPLACE (1) and RENAME_EXCHANGE (2) (RENAME_WHITEOUT 4).
     * Replies: ok. An unknown flag should be answered EINVAL.
     */
    default void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Makes a hard link to {@code nodeid} as {@code newName} in {@code newParent}. Replies: entry (lookup +1). */
    default void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * Opens a file; {@code flags} are the open(2) flags (O_CREAT, O_EXCL and O_NOCTTY removed; O_TRUNC only
     * with {@link Capability#ATOMIC_O_TRUNC}). Replies: open. ENOSYS means stateless opens for good (fh 0,
     * no release).
     */
    default void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) { reply.error(Errno.ENOSYS); }

    /** Reads up to {@code size} bytes at {@code offset}. Replies: data / buffer+commit. */
    default void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * {@link #write}'s flag: the writer lacks CAP_FSETID, so set-ID bits must go
     * ({@link dev.ringfuse.access.Permissions#killedMode}); sent with HANDLE_KILLPRIV_V2, and for direct writes.
     */
    int WRITE_KILL_SUIDGID = 4;

    /**
     * Writes {@code data} (valid until the reply) at {@code offset}; {@code writeFlags}: WRITE_CACHE 1 (from
     * the writeback cache), WRITE_LOCKOWNER 2, {@link #WRITE_KILL_SUIDGID} 4. Replies: count.
     */
    default void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags, CountReply reply) { reply.error(Errno.ENOSYS); }

    /** Called on each close(2) of a file descriptor. Replies: ok. */
    default void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** The last close of an open file. Replies: ok (the kernel ignores errors). */
    default void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock, StatusReply reply) { reply.ok(); }

    /** Flushes data (and metadata unless {@code datasync}). Replies: ok. */
    default void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Opens a directory. Replies: open. ENOSYS (with NO_OPENDIR_SUPPORT offered) means stateless. */
    default void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) { reply.error(Errno.ENOSYS); }

    /** Lists a directory from cookie {@code offset}, filling at most {@code size} bytes. Replies: add+send. */
    default void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) { reply.error(Errno.ENOSYS); }

    /** Lists with attributes. Replies: add+send (lookup +1 per added entry with a node id, but "." and ".."). */
    default void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) { reply.error(Errno.ENOSYS); }

    /** Closes a directory. Replies: ok. */
    default void releasedir(RequestContext ctx, long nodeid, long fh, int flags, StatusReply reply) { reply.ok(); }

    /** Flushes a directory. Replies: ok. */
    default void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Filesystem statistics. Replies: statfs. By default {@link StatFs#UNKNOWN}, as libfuse answers. */
    default void statfs(RequestContext ctx, long nodeid, StatfsReply reply) { reply.statfs(StatFs.UNKNOWN); }

    /**
     * Sets an xattr; {@code flags} XATTR_CREATE (1) / XATTR_REPLACE (2); {@code value} valid until the reply.
     * Replies: ok.
     */
    default void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Reads an xattr; {@code size} 0 asks for the size only. Replies: value (size rules applied for you). */
    default void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) { reply.error(Errno.ENOSYS); }

    /** Lists xattr names. Replies: names. */
    default void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) { reply.error(Errno.ENOSYS); }

    /** Removes an xattr. Replies: ok, ENODATA. */
    default void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** access(2) check, R_OK 4 | W_OK 2 | X_OK 1 or F_OK 0 (not sent with default_permissions). Replies: ok. */
    default void access(RequestContext ctx, long nodeid, int mask, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Creates and opens a regular file. Replies: created (lookup +1). ENOSYS: the kernel uses mknod+open. */
    default void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) { reply.error(Errno.ENOSYS); }

    /** Tests for a conflicting POSIX lock (only with {@link Capability#POSIX_LOCKS}). Replies: lock. */
    default void getlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, LockReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * Acquires or releases a POSIX lock; {@code sleep} for F_SETLKW (reply when granted, or EINTR when
     * interrupted). Replies: ok, EAGAIN if it conflicts and {@code sleep} is false.
     */
    default void setlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, boolean sleep, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * flock(2) (only with {@link Capability#FLOCK_LOCKS}); {@code op} is LOCK_SH 1, LOCK_EX 2 or LOCK_UN 8,
     * with LOCK_NB 4 when the caller would not wait. Replies: ok, EWOULDBLOCK.
     */
    default void flock(RequestContext ctx, long nodeid, long fh, long owner, int op, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** Maps a file block to a device block (fuseblk). Replies: block. */
    default void bmap(RequestContext ctx, long nodeid, int blocksize, long block, BmapReply reply) { reply.error(Errno.ENOSYS); }

    /** A restricted ioctl with its input bytes. Replies: result. */
    default void ioctl(RequestContext ctx, long nodeid, long fh, int flags, int cmd, long arg, MemorySegment in, int outSize, IoctlReply reply) { reply.error(Errno.ENOSYS); }

    /** poll(2); {@code kh} is the handle for {@link Notifier#pollWakeup} if {@code schedule}. Replies: revents. */
    default void poll(RequestContext ctx, long nodeid, long fh, long kh, boolean schedule, int events, PollReply reply) { reply.error(Errno.ENOSYS); }

    /**
     * fallocate(2): {@code mode} 0, FALLOC_FL_KEEP_SIZE 1, FALLOC_FL_PUNCH_HOLE 2 (with KEEP_SIZE),
     * ZERO_RANGE 16, ... Replies: ok. ENOSYS becomes EOPNOTSUPP for callers for good.
     */
    default void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length, StatusReply reply) { reply.error(Errno.ENOSYS); }

    /** lseek(2) with SEEK_DATA (3) or SEEK_HOLE (4) (others are handled by the kernel). Replies: offset. */
    default void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) { reply.error(Errno.ENOSYS); }

    /** copy_file_range(2) between two open files. Replies: count. */
    default void copyFileRange(RequestContext ctx, long nodeIn, long fhIn, long offIn, long nodeOut, long fhOut, long offOut, long length, int flags, CountReply reply) { reply.error(Errno.ENOSYS); }

    /** O_TMPFILE: an unnamed file in {@code parent}. Replies: created (lookup +1). */
    default void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) { reply.error(Errno.ENOSYS); }

    /** statx(2); {@code fh} -1 if none. Replies: statx. ENOSYS: the kernel uses getattr for good. */
    default void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) { reply.error(Errno.ENOSYS); }

    /** syncfs(2). Replies: ok. */
    default void syncfs(RequestContext ctx, long nodeid, StatusReply reply) { reply.error(Errno.ENOSYS); }
}
