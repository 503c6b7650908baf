package dev.ringfuse.session;

import dev.ringfuse.Errno;
import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.protocol.Request;
import dev.ringfuse.protocol.Request.*;

/**
 * The call table: one case per filesystem request, checked exhaustive by the compiler over the sealed
 * {@link Request} type. Requests the session answers itself never reach here.
 */
final class Dispatch {
    private static final int LOCK_SH = 1, LOCK_EX = 2, LOCK_NB = 4, LOCK_UN = 8;

    private Dispatch() {}

    static void call(LowLevelFileSystem fs, Request r, ReplyHandle h) {
        long n = r.nodeid();
        switch (r) {
            case Lookup q -> fs.lookup(h, n, q.name(), h);
            case GetAttr q -> fs.getattr(h, n, (q.flags() & Fuse.GETATTR_FH) != 0 ? q.fh() : -1, h);
            case SetAttrReq q -> fs.setattr(h, n, q.attr(), h);
            case ReadLink q -> fs.readlink(h, n, h);
            case Symlink q -> fs.symlink(h, n, q.name(), q.target(), h);
            case MkNod q -> fs.mknod(h, n, q.name(), q.mode(), q.rdev(), h);
            case MkDir q -> fs.mkdir(h, n, q.name(), q.mode(), h);
            case Unlink q -> fs.unlink(h, n, q.name(), h);
            case RmDir q -> fs.rmdir(h, n, q.name(), h);
            case Rename q -> fs.rename(h, n, q.name(), q.newDir(), q.newName(), q.flags(), h);
            case Link q -> fs.link(h, q.oldNodeid(), n, q.newName(), h);
            case Open q when q.dir() -> fs.opendir(h, n, q.flags(), h);
            case Open q -> fs.open(h, n, q.flags(), h);
            case Read q -> {
                switch (q.kind()) {
                    case FILE -> fs.read(h, n, q.fh(), q.offset(), q.size(), h);
                    case DIR -> fs.readdir(h, n, q.fh(), q.offset(), q.size(), h);
                    case DIRPLUS -> fs.readdirplus(h, n, q.fh(), q.offset(), q.size(), h);
                }
            }
            case Write q -> fs.write(h, n, q.fh(), q.offset(), q.data(), q.writeFlags(), h);
            case StatFs q -> fs.statfs(h, n, h);
            case Release q when q.dir() -> fs.releasedir(h, n, q.fh(), q.flags(), h);
            case Release q -> fs.release(h, n, q.fh(), q.flags(), q.lockOwner(),
                    (q.releaseFlags() & Fuse.RELEASE_FLOCK_UNLOCK) != 0, h);
            case Fsync q when q.dir() -> fs.fsyncdir(h, n, q.fh(), q.datasync(), h);
            case Fsync q -> fs.fsync(h, n, q.fh(), q.datasync(), h);
            case SetXattr q -> fs.setxattr(h, n, q.name(), q.value(), q.flags(), h);
            case GetXattr q -> fs.getxattr(h, n, q.name(), q.size(), h);
            case ListXattr q -> fs.listxattr(h, n, q.size(), h);
            case RemoveXattr q -> fs.removexattr(h, n, q.name(), h);
            case Flush q -> fs.flush(h, n, q.fh(), q.lockOwner(), h);
            case GetLk q -> fs.getlk(h, n, q.fh(), q.owner(), q.lock(), h);
            case SetLk q when (q.lkFlags() & Fuse.LK_FLOCK) != 0 -> fs.flock(h, n, q.fh(), q.owner(), flockOp(q), h);
            case SetLk q -> fs.setlk(h, n, q.fh(), q.owner(), q.lock(), q.sleep(), h);
            case Access q -> fs.access(h, n, q.mask(), h);
            case Create q -> fs.create(h, n, q.name(), q.mode(), q.flags(), h);
            case TmpFile q -> fs.tmpfile(h, n, q.mode(), q.flags(), h);
            case Bmap q -> fs.bmap(h, n, q.blocksize(), q.block(), h);
            case Ioctl q when (q.flags() & Fuse.IOCTL_UNRESTRICTED) != 0 -> h.error(Errno.ENOSYS);
            case Ioctl q -> fs.ioctl(h, n, q.fh(), q.flags(), q.cmd(), q.arg(), q.in(), q.outSize(), h);
            case Poll q -> fs.poll(h, n, q.fh(), q.kh(), (q.flags() & Fuse.POLL_SCHEDULE_NOTIFY) != 0, q.events(), h);
            case Fallocate q -> fs.fallocate(h, n, q.fh(), q.mode(), q.offset(), q.length(), h);
            case Lseek q -> fs.lseek(h, n, q.fh(), q.offset(), q.whence(), h);
            case CopyFileRange q -> fs.copyFileRange(h, n, q.fhIn(), q.offIn(), q.nodeidOut(), q.fhOut(), q.offOut(),
                    q.len(), (int) q.flags(), h);
            case SyncFs q -> fs.syncfs(h, n, h);
            case Statx q -> fs.statx(h, n, (q.getattrFlags() & Fuse.GETATTR_FH) != 0 ? q.fh() : -1, q.sxFlags(), q.sxMask(), h);
            case Init _, Destroy _, Forget _, BatchForget _, Interrupt _, NotifyReply _, Unsupported _, Malformed _ ->
                    throw new IllegalStateException("answered by the session: " + r);
        }
    }

    private static int flockOp(SetLk q) {
        int op = switch (q.lock().type()) {
            case FileLock.F_RDLCK -> LOCK_SH;
            case FileLock.F_WRLCK -> LOCK_EX;
            default -> LOCK_UN;
        };
        return q.sleep() || op == LOCK_UN ? op : op | LOCK_NB;
    }

    /** The request's size limit a reply must respect (read size, xattr buffer, ioctl out), or 0. */
    static int limit(Request r) {
        return switch (r) {
            case Read q -> q.size();
            case GetXattr q -> q.size();
            case ListXattr q -> q.size();
            case Ioctl q -> q.outSize();
            default -> 0;
        };
    }

    /** The caller's umask for creating requests, else 0. */
    static int umask(Request r) {
        return switch (r) {
            case MkNod q -> q.umask();
            case MkDir q -> q.umask();
            case Create q -> q.umask();
            case TmpFile q -> q.umask();
            default -> 0;
        };
    }
}
