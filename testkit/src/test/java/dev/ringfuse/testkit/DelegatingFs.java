package dev.ringfuse.testkit;

import dev.ringfuse.lowlevel.*;
import java.lang.foreign.MemorySegment;

/** Forwards every call to another filesystem; robustness tests override single calls to inject faults. */
class DelegatingFs implements LowLevelFileSystem {
    protected final LowLevelFileSystem inner;

    DelegatingFs(LowLevelFileSystem inner) { this.inner = inner; }

    @Override public void init(InitContext init) { inner.init(init); }
    @Override public void destroy() { inner.destroy(); }
    @Override public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) { inner.lookup(ctx, parent, name, reply); }
    @Override public void forget(long nodeid, long nlookup) { inner.forget(nodeid, nlookup); }
    @Override public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) { inner.getattr(ctx, nodeid, fh, reply); }
    @Override public void setattr(RequestContext ctx, long nodeid, SetAttr changes, AttrReply reply) { inner.setattr(ctx, nodeid, changes, reply); }
    @Override public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) { inner.readlink(ctx, nodeid, reply); }
    @Override public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) { inner.mknod(ctx, parent, name, mode, rdev, reply); }
    @Override public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) { inner.mkdir(ctx, parent, name, mode, reply); }
    @Override public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) { inner.unlink(ctx, parent, name, reply); }
    @Override public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) { inner.rmdir(ctx, parent, name, reply); }
    @Override public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) { inner.symlink(ctx, parent, name, target, reply); }
    @Override public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags, StatusReply reply) { inner.rename(ctx, parent, name, newParent, newName, flags, reply); }
    @Override public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) { inner.link(ctx, nodeid, newParent, newName, reply); }
    @Override public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) { inner.open(ctx, nodeid, flags, reply); }
    @Override public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) { inner.read(ctx, nodeid, fh, offset, size, reply); }
    @Override public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags, CountReply reply) { inner.write(ctx, nodeid, fh, offset, data, writeFlags, reply); }
    @Override public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) { inner.flush(ctx, nodeid, fh, lockOwner, reply); }
    @Override public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock, StatusReply reply) { inner.release(ctx, nodeid, fh, flags, lockOwner, flockUnlock, reply); }
    @Override public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) { inner.fsync(ctx, nodeid, fh, datasync, reply); }
    @Override public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) { inner.opendir(ctx, nodeid, flags, reply); }
    @Override public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) { inner.readdir(ctx, nodeid, fh, offset, size, reply); }
    @Override public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) { inner.readdirplus(ctx, nodeid, fh, offset, size, reply); }
    @Override public void releasedir(RequestContext ctx, long nodeid, long fh, int flags, StatusReply reply) { inner.releasedir(ctx, nodeid, fh, flags, reply); }
    @Override public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) { inner.fsyncdir(ctx, nodeid, fh, datasync, reply); }
    @Override public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) { inner.statfs(ctx, nodeid, reply); }
    @Override public void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) { inner.setxattr(ctx, nodeid, name, value, flags, reply); }
    @Override public void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) { inner.getxattr(ctx, nodeid, name, size, reply); }
    @Override public void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) { inner.listxattr(ctx, nodeid, size, reply); }
    @Override public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) { inner.removexattr(ctx, nodeid, name, reply); }
    @Override public void access(RequestContext ctx, long nodeid, int mask, StatusReply reply) { inner.access(ctx, nodeid, mask, reply); }
    @Override public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) { inner.create(ctx, parent, name, mode, flags, reply); }
    @Override public void getlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, LockReply reply) { inner.getlk(ctx, nodeid, fh, owner, lock, reply); }
    @Override public void setlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, boolean sleep, StatusReply reply) { inner.setlk(ctx, nodeid, fh, owner, lock, sleep, reply); }
    @Override public void flock(RequestContext ctx, long nodeid, long fh, long owner, int op, StatusReply reply) { inner.flock(ctx, nodeid, fh, owner, op, reply); }
    @Override public void bmap(RequestContext ctx, long nodeid, int blocksize, long block, BmapReply reply) { inner.bmap(ctx, nodeid, blocksize, block, reply); }
    @Override public void ioctl(RequestContext ctx, long nodeid, long fh, int flags, int cmd, long arg, MemorySegment in, int outSize, IoctlReply reply) { inner.ioctl(ctx, nodeid, fh, flags, cmd, arg, in, outSize, reply); }
    @Override public void poll(RequestContext ctx, long nodeid, long fh, long kh, boolean schedule, int events, PollReply reply) { inner.poll(ctx, nodeid, fh, kh, schedule, events, reply); }
    @Override public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length, StatusReply reply) { inner.fallocate(ctx, nodeid, fh, mode, offset, length, reply); }
    @Override public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) { inner.lseek(ctx, nodeid, fh, offset, whence, reply); }
    @Override public void copyFileRange(RequestContext ctx, long nodeIn, long fhIn, long offIn, long nodeOut, long fhOut, long offOut, long length, int flags, CountReply reply) { inner.copyFileRange(ctx, nodeIn, fhIn, offIn, nodeOut, fhOut, offOut, length, flags, reply); }
    @Override public void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) { inner.tmpfile(ctx, parent, mode, flags, reply); }
    @Override public void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) { inner.statx(ctx, nodeid, fh, flags, mask, reply); }
    @Override public void syncfs(RequestContext ctx, long nodeid, StatusReply reply) { inner.syncfs(ctx, nodeid, reply); }
}
