package dev.ringfuse.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatFs;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A path-based filesystem in the spirit of libfuse's {@code fuse_operations}: every file is named by its
 * absolute path inside the filesystem ({@code "/"}, {@code "/a/b"}). Mount it through
 * {@link PathFileSystemAdapter}, which implements the low-level API and keeps node ids, lookup counts and
 * open handles for you.
 *
 * <p><b>Errors.</b> Every method defaults to {@code ENOSYS}. Fail by throwing
 * {@link FuseException}{@code (Errno.X)}; any other exception answers {@code EIO}. (jnr-fuse's
 * {@code return -ErrorCodes.ENOENT()} becomes {@code throw new FuseException(Errno.ENOENT)}.)
 *
 * <p><b>Handles.</b> {@link #open}, {@link #create} and {@link #opendir} return a handle of the filesystem's
 * choosing (any long); later calls on that open file carry it as {@code fh}. Calls made without an open
 * file (stat(2), truncate(2), ...) carry {@link #NO_FH}. After an unlink or rename the path passed with a
 * handle may be stale: prefer the handle when there is one.
 *
 * <p><b>Caller.</b> {@link #caller()} tells who is calling (uid, gid, pid, umask) during any method.
 *
 * <p><b>Threads.</b> Methods are called concurrently from the transport's threads; calls that change the
 * namespace (mknod, mkdir, create, unlink, rmdir, symlink, link, rename) are never concurrent with any
 * other call, so the paths a method receives are stable while it runs.
 */
public interface PathFileSystem {
    /** The handle passed when the call is not made on an open file. */
    long NO_FH = -1;
    /** {@link #utimens} nanoseconds meaning "the current time". */
    int UTIME_NOW = (1 << 30) - 1;
    /** {@link #utimens} nanoseconds meaning "leave unchanged". */
    int UTIME_OMIT = (1 << 30) - 2;

    /** Who is calling the current method. */
    static RequestContext caller() {
        return PathFileSystemAdapter.CALLER.get();
    }

    /**
     * INIT: the adapter has chosen its capabilities; add or remove your own. For POSIX ACLs ask for
     * {@code POSIX_ACL} and {@code DONT_MASK}, keep the two ACL xattrs and let
     * {@link dev.ringfuse.access.PosixAcl} decide in setxattr, chmod and the creating calls (with
     * {@link #caller()}'s umask).
     */
    default void init(InitContext init) {}

    /**
     * Whether this filesystem checks permissions itself on mounts without default_permissions (see
     * {@link dev.ringfuse.lowlevel.LowLevelFileSystem#checksPermissions()}); {@link #caller()} says who asks,
     * and {@code dev.ringfuse.access.Permissions} has the kernel's rules ({@code Caller.of(caller())}).
     * Default false: such a filesystem cannot be mounted with allow_other and no_default_permissions.
     */
    default boolean checksPermissions() { return false; }

    /** The session ended. */
    default void destroy() {}

    /** Attributes of {@code path} (lstat: do not follow a final symlink). */
    default FileStat getattr(String path, long fh) { throw enosys(); }

    /** The target of the symlink {@code path}. */
    default String readlink(String path) { throw enosys(); }

    /** Creates a regular file, fifo, socket or device node; {@code mode} has the type bits. */
    default void mknod(String path, int mode, int rdev) { throw enosys(); }

    /** Creates a directory; {@code mode} has no type bits. */
    default void mkdir(String path, int mode) { throw enosys(); }

    /** Removes the name {@code path} of a non-directory; open handles on the file stay valid. */
    default void unlink(String path) { throw enosys(); }

    /** Removes the empty directory {@code path} (ENOTEMPTY if it is not empty). */
    default void rmdir(String path) { throw enosys(); }

    /** Creates the symlink {@code path} pointing at {@code target}. */
    default void symlink(String target, String path) { throw enosys(); }

    /** renameat2: {@code flags} 0, RENAME_NOREPLACE 1 or RENAME_EXCHANGE 2; answer EINVAL for others. */
    default void rename(String from, String to, int flags) { throw enosys(); }

    /** Makes {@code newPath} a hard link to {@code existing}. */
    default void link(String existing, String newPath) { throw enosys(); }

    /** Sets the permission bits ({@code mode & 07777}; no type bits). */
    default void chmod(String path, int mode, long fh) { throw enosys(); }

    /** Changes owner and/or group; -1 leaves one unchanged. */
    default void chown(String path, int uid, int gid, long fh) { throw enosys(); }

    /** Sets the length: cuts the file, or extends it with zeros (truncate(2), ftruncate(2), O_TRUNC). */
    default void truncate(String path, long size, long fh) { throw enosys(); }

    /** Sets times as utimensat(2); nanoseconds may be {@link #UTIME_NOW} or {@link #UTIME_OMIT}. */
    default void utimens(String path, long atimeSec, int atimeNsec, long mtimeSec, int mtimeNsec, long fh) { throw enosys(); }

    /** Opens {@code path} with open(2) {@code flags} (no O_CREAT/O_EXCL; O_TRUNC arrives as a truncate after the open). */
    default long open(String path, int flags) { throw enosys(); }

    /** Creates and opens a regular file. ENOSYS: the adapter falls back to mknod + open. */
    default long create(String path, int mode, int flags) { throw enosys(); }

    /**
     * Reads into {@code buf} (as many bytes as the caller asked for; valid during the call only) from
     * {@code offset}; returns the count, less than {@code buf.byteSize()} only at end of file.
     */
    default int read(String path, MemorySegment buf, long offset, long fh) { throw enosys(); }

    /** Writes {@code data} (valid during the call only) at {@code offset}; returns the count written. */
    default int write(String path, MemorySegment data, long offset, long fh) { throw enosys(); }

    /** On each close(2) of a descriptor. */
    default void flush(String path, long fh) { throw enosys(); }

    /** The last close of an open file; errors are ignored. */
    default void release(String path, long fh, int flags) {}

    /** Makes the file's data (and, unless {@code datasync}, its metadata) durable; ENOSYS: nothing to do. */
    default void fsync(String path, boolean datasync, long fh) { throw enosys(); }

    /**
     * Sizes and free space of the filesystem, for statfs(2) and df. By default {@link StatFs#UNKNOWN} (as libfuse and
     * jnr-fuse's stub answer), so that df lists the mount instead of failing.
     */
    default StatFs statfs(String path) { return StatFs.UNKNOWN; }

    /** XATTR_CREATE 1 / XATTR_REPLACE 2. */
    default void setxattr(String path, String name, byte[] value, int flags) { throw enosys(); }

    /** The value, or ENODATA. */
    default byte[] getxattr(String path, String name) { throw enosys(); }

    /** The names of the extended attributes of {@code path}, with their namespace prefix ("user.x"). */
    default List<String> listxattr(String path) { throw enosys(); }

    /** Removes an xattr, or ENODATA. */
    default void removexattr(String path, String name) { throw enosys(); }

    /** Opens a directory; ENOSYS means no handle is needed (0 is passed). */
    default long opendir(String path) { throw enosys(); }

    /**
     * Lists the whole directory into {@code filler}. The adapter takes the listing at the first readdir
     * of an open directory (and again on rewind) and pages it to the kernel itself.
     */
    default void readdir(String path, DirFiller filler, long fh) { throw enosys(); }

    default void releasedir(String path, long fh) {}

    /** access(2) check (only without default_permissions). */
    default void access(String path, int mask) { throw enosys(); }

    /** fallocate(2). */
    default void fallocate(String path, int mode, long offset, long length, long fh) { throw enosys(); }

    /** lseek(2) SEEK_DATA (3) / SEEK_HOLE (4); returns the new offset. */
    default long lseek(String path, long offset, int whence, long fh) { throw enosys(); }

    /** copy_file_range(2); returns the bytes copied. */
    default long copyFileRange(String pathIn, long fhIn, long offIn, String pathOut, long fhOut, long offOut,
                               long length, int flags) { throw enosys(); }

    private static FuseException enosys() {
        return new FuseException(Errno.ENOSYS);
    }
}
