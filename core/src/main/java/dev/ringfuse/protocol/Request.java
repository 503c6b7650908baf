package dev.ringfuse.protocol;

import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.SetAttr;
import java.lang.foreign.MemorySegment;

/**
 * One decoded request. Segments inside a request (write data, xattr values) are views of the transport's
 * buffer and valid until the reply. Names are decoded as UTF-8.
 */
public sealed interface Request {
    Header header();

    default long unique() { return header().unique(); }

    default long nodeid() { return header().nodeid(); }

    record Init(Header header, int major, int minor, int maxReadahead, long flags) implements Request {}
    record Destroy(Header header) implements Request {}
    record Lookup(Header header, String name) implements Request {}
    record Forget(Header header, long nlookup) implements Request {}
    record BatchForget(Header header, long[] nodeids, long[] nlookups) implements Request {}
    record GetAttr(Header header, int flags, long fh) implements Request {}
    record SetAttrReq(Header header, SetAttr attr) implements Request {}
    record ReadLink(Header header) implements Request {}
    record Symlink(Header header, String name, String target) implements Request {}
    record MkNod(Header header, String name, int mode, int rdev, int umask) implements Request {}
    record MkDir(Header header, String name, int mode, int umask) implements Request {}
    record Unlink(Header header, String name) implements Request {}
    record RmDir(Header header, String name) implements Request {}
    record Rename(Header header, String name, long newDir, String newName, int flags) implements Request {}
    record Link(Header header, long oldNodeid, String newName) implements Request {}
    record Open(Header header, int flags, int openFlags, boolean dir) implements Request {}
    record Read(Header header, long fh, long offset, int size, int readFlags, long lockOwner, int flags, Kind kind) implements Request {
        /** Which of the three read-shaped opcodes this is. */
        public enum Kind { FILE, DIR, DIRPLUS }
    }
    record Write(Header header, long fh, long offset, int writeFlags, long lockOwner, int flags, MemorySegment data) implements Request {}
    record StatFs(Header header) implements Request {}
    record Release(Header header, long fh, int flags, int releaseFlags, long lockOwner, boolean dir) implements Request {}
    record Fsync(Header header, long fh, boolean datasync, boolean dir) implements Request {}
    record SetXattr(Header header, String name, MemorySegment value, int flags, int setxattrFlags) implements Request {}
    record GetXattr(Header header, String name, int size) implements Request {}
    record ListXattr(Header header, int size) implements Request {}
    record RemoveXattr(Header header, String name) implements Request {}
    record Flush(Header header, long fh, long lockOwner) implements Request {}
    record GetLk(Header header, long fh, long owner, FileLock lock, int lkFlags) implements Request {}
    record SetLk(Header header, long fh, long owner, FileLock lock, int lkFlags, boolean sleep) implements Request {}
    record Access(Header header, int mask) implements Request {}
    record Create(Header header, String name, int flags, int mode, int umask, int openFlags) implements Request {}
    record TmpFile(Header header, String name, int flags, int mode, int umask, int openFlags) implements Request {}
    record Interrupt(Header header, long targetUnique) implements Request {}
    record Bmap(Header header, long block, int blocksize) implements Request {}
    record Ioctl(Header header, long fh, int flags, int cmd, long arg, int outSize, MemorySegment in) implements Request {}
    record Poll(Header header, long fh, long kh, int flags, int events) implements Request {}
    record NotifyReply(Header header, long offset, int size, MemorySegment data) implements Request {}
    record Fallocate(Header header, long fh, long offset, long length, int mode) implements Request {}
    record Lseek(Header header, long fh, long offset, int whence) implements Request {}
    record CopyFileRange(Header header, long fhIn, long offIn, long nodeidOut, long fhOut, long offOut, long len, long flags, boolean wide) implements Request {}
    record SyncFs(Header header) implements Request {}
    record Statx(Header header, int getattrFlags, long fh, int sxFlags, int sxMask) implements Request {}

    /** A known opcode this server does not serve (virtiofs DAX mappings): answered ENOSYS. */
    record Unsupported(Header header) implements Request {}

    /** Input that could not be decoded: answered with {@code errno}, never thrown. */
    record Malformed(Header header, int errno, String reason) implements Request {}
}
