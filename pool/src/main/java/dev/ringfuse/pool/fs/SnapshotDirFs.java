package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.BmapReply;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.IoctlReply;
import dev.ringfuse.lowlevel.LockReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.LseekReply;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.PollReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.StatxReply;
import dev.ringfuse.lowlevel.XattrReply;
import dev.ringfuse.pool.txg.Snapshots;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A mounted dataset with its snapshots reachable read-only at {@code MNT/.snapshots/NAME/}, as ZFS's hidden
 * snapdir: the name is not listed by readdir of the root but a lookup finds it. Requests on the live dataset
 * go to its {@link PoolFs} unchanged; each snapshot is served by a PoolFs over its read-only view, with node
 * ids moved into a range of their own ({@code index << 48 | ino}); anything that would change a snapshot
 * gets EROFS. A view of a snapshot destroyed meanwhile answers ESTALE. Views live while the kernel holds
 * their nodes, and leave memory after idle ({@link SnapshotViews}).
 */
public final class SnapshotDirFs implements LowLevelFileSystem, AutoCloseable {
    /** The name in the root; hidden from its listing. */
    public static final String DIR = ".snapshots";
    static final int SHIFT = 48;
    static final long LOW = (1L << SHIFT) - 1;
    /** Node id of the .snapshots directory, above every view's range. */
    static final long SNAPDIR = 1L << 62;
    private static final long TIMEOUT = 1_000_000_000L;

    private final PoolFs live;
    private final SnapshotViews views;

    private final AutoCloseable alsoClose;

    /** Serves {@code live} and its snapshots; {@code alsoClose} (a control socket, or null) is closed first at unmount. */
    public SnapshotDirFs(PoolFs live, AutoCloseable alsoClose) {
        this(live, alsoClose, Long.getLong("pool.snapshots.idleSeconds", 60) * 1_000_000_000L);
    }

    /** As above; a snapshot's view is dropped after {@code idleNanos} without a request (see {@link SnapshotViews}). */
    SnapshotDirFs(PoolFs live, AutoCloseable alsoClose, long idleNanos) {
        this.live = live;
        this.alsoClose = alsoClose;
        this.views = new SnapshotViews(live, idleNanos);
    }

    /** The live dataset's filesystem. */
    public PoolFs live() { return live; }

    /** Snapshot views the kernel may still hold nodes of (tests watch it return to 0). */
    int viewSlots() { return views.slots(); }

    /** Snapshot views loaded in memory. */
    int viewsLoaded() { return views.loaded(); }

    // ---- views -------------------------------------------------------------------------------------------

    /** A request on a snapshot's node: the view, its inner node id. */
    private interface ViewCall {
        void run(SnapshotViews.Slot s, PoolFs fs, long ino) throws IOException;
    }

    /**
     * Runs {@code c} on the view owning {@code nodeid} under the pool lock, so that its snapshot cannot be
     * destroyed (and its blocks reused) between the check and the reads; ESTALE once it is gone.
     */
    private void onView(long nodeid, ViewCall c) {
        live.pool.lock().lock();
        try {
            SnapshotViews.Slot s = views.require((int) (nodeid >>> SHIFT));
            c.run(s, s.fs, inner(nodeid));
        } catch (IOException e) {
            System.err.println("pool " + live.pool.name() + ": snapshot view: " + e.getMessage());
            throw new FuseException(Errno.EIO);
        } finally {
            live.pool.lock().unlock();
        }
    }

    private static boolean inView(long ino) {
        return ino != SNAPDIR && (ino >>> SHIFT) != 0;
    }

    private static long inner(long ino) {
        return ino & LOW;
    }

    private Attr snapdirAttr() {
        Attr[] root = new Attr[1];
        live.locked(() -> root[0] = live.attr(live.inodes.require(Inodes.ROOT)));
        Attr a = root[0];
        return new Attr(SNAPDIR, Attr.S_IFDIR | 0555, 2, a.uid(), a.gid(), 0, 0, 0, 4096, a.atimeSec(), a.atimeNsec(),
                a.mtimeSec(), a.mtimeNsec(), a.ctimeSec(), a.ctimeNsec(), a.btimeSec(), a.btimeNsec());
    }

    /**
     * The snapshots listed after readdir cookie {@code offset}, by id: ids grow with creation, and id + 2 (after
     * "." and "..") is each one's cookie, so a snapshot taken or destroyed between two calls moves no other.
     * Names only, from the directory: {@link Snapshots#list} would also read every snapshot's dead list.
     */
    private SortedMap<Long, String> snapshotsAfter(long offset) {
        TreeMap<Long, String> byId = new TreeMap<>();
        live.locked(() -> live.pool.directory().snapshots(live.ds.id()).forEach((name, id) -> byId.put(id, name)));
        return byId.tailMap(offset - 2, false);
    }

    // ---- lifecycle ---------------------------------------------------------------------------------------

    @Override
    public void init(InitContext init) {
        live.init(init);
        views.start();
    }

    @Override public boolean checksPermissions() { return live.checksPermissions(); }
    @Override
    public void destroy() {
        close();
    }

    @Override
    public void close() {
        views.close();
        if (alsoClose != null) {
            try {
                alsoClose.close();
            } catch (Exception e) {
                System.err.println("pool: closing " + alsoClose + " failed: " + e.getMessage());
            }
        }
        live.close();
    }

    // ---- names -------------------------------------------------------------------------------------------

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        if (parent == Inodes.ROOT && name.equals(DIR)) {
            reply.entry(new Entry(SNAPDIR, 1, snapdirAttr(), TIMEOUT, TIMEOUT));
        } else if (parent == SNAPDIR) {
            live.locked(() -> {
                SnapshotViews.Slot v = views.byName(name);
                if (v == null) {
                    reply.negative(0);
                    return;
                }
                Entry e = v.fs.entry(v.fs.inodes.require(Inodes.ROOT));
                views.counted(v, 1);
                reply.entry(ViewReplies.mapEntry(v, e));
            });
        } else if (inView(parent)) {
            onView(parent, (v, fs, ino) -> {
                views.named(v, parent, name);
                fs.lookup(ctx, ino, name, ViewReplies.entries(views, v, reply));
            });
        } else {
            live.lookup(ctx, parent, name, reply);
        }
    }

    @Override
    public void forget(long nodeid, long nlookup) {
        if (nodeid == SNAPDIR) return;
        if (!inView(nodeid)) {
            live.forget(nodeid, nlookup);
            return;
        }
        live.pool.lock().lock();
        try {
            views.forget((int) (nodeid >>> SHIFT), inner(nodeid), nlookup);
        } finally {
            live.pool.lock().unlock();
        }
    }

    private static boolean rootName(long parent, String name) {
        return parent == Inodes.ROOT && name.equals(DIR);
    }

    private static boolean readOnly(long ino) {
        return ino == SNAPDIR || inView(ino);
    }

    @Override
    public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) {
        if (readOnly(parent)) reply.error(Errno.EROFS);
        else if (rootName(parent, name)) reply.error(Errno.EEXIST);
        else live.mknod(ctx, parent, name, mode, rdev, reply);
    }

    @Override
    public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) {
        if (readOnly(parent)) reply.error(Errno.EROFS);
        else if (rootName(parent, name)) reply.error(Errno.EEXIST);
        else live.mkdir(ctx, parent, name, mode, reply);
    }

    @Override
    public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) {
        if (readOnly(parent)) reply.error(Errno.EROFS);
        else if (rootName(parent, name)) reply.error(Errno.EEXIST);
        else live.symlink(ctx, parent, name, target, reply);
    }

    @Override
    public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) {
        if (readOnly(parent)) reply.error(Errno.EROFS);
        else if (rootName(parent, name)) reply.error(Errno.EEXIST);
        else live.create(ctx, parent, name, mode, flags, reply);
    }

    @Override
    public void tmpfile(RequestContext ctx, long parent, int mode, int flags, CreateReply reply) {
        if (readOnly(parent)) reply.error(Errno.EROFS);
        else live.tmpfile(ctx, parent, mode, flags, reply);
    }

    @Override
    public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) {
        if (readOnly(nodeid) || readOnly(newParent)) reply.error(inView(nodeid) && !readOnly(newParent) ? Errno.EXDEV : Errno.EROFS);
        else if (rootName(newParent, newName)) reply.error(Errno.EEXIST);
        else live.link(ctx, nodeid, newParent, newName, reply);
    }

    @Override
    public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) {
        if (readOnly(parent) || rootName(parent, name)) reply.error(Errno.EROFS);
        else live.unlink(ctx, parent, name, reply);
    }

    @Override
    public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) {
        if (readOnly(parent) || rootName(parent, name)) reply.error(Errno.EROFS);
        else live.rmdir(ctx, parent, name, reply);
    }

    @Override
    public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags, StatusReply reply) {
        if (readOnly(parent) || readOnly(newParent) || rootName(parent, name) || rootName(newParent, newName)) reply.error(Errno.EROFS);
        else live.rename(ctx, parent, name, newParent, newName, flags, reply);
    }

    @Override
    public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) {
        if (nodeid == SNAPDIR) reply.error(Errno.EINVAL);
        else if (inView(nodeid)) onView(nodeid, (v, fs, ino) -> fs.readlink(ctx, ino, reply));
        else live.readlink(ctx, nodeid, reply);
    }

    // ---- directories -------------------------------------------------------------------------------------

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        if (nodeid == SNAPDIR) reply.open(0, 0);
        else if (inView(nodeid)) onView(nodeid, (v, fs, ino) -> fs.opendir(ctx, ino, flags, reply));
        else live.opendir(ctx, nodeid, flags, reply);
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        if (nodeid == SNAPDIR) {
            SortedMap<Long, String> snaps = snapshotsAfter(offset);
            boolean room = offset >= 1 || reply.add(".", SNAPDIR, Attr.S_IFDIR, 1);
            if (room && offset < 2) room = reply.add("..", Inodes.ROOT, Attr.S_IFDIR, 2);
            for (Map.Entry<Long, String> e : snaps.entrySet()) {
                if (!room) break;
                room = reply.add(e.getValue(), SNAPDIR + e.getKey(), Attr.S_IFDIR, e.getKey() + 2);
            }
            reply.send();
        } else if (inView(nodeid)) {
            onView(nodeid, (v, fs, ino) -> fs.readdir(ctx, ino, fh, offset, size, ViewReplies.dirs(v, reply)));
        } else {
            live.readdir(ctx, nodeid, fh, offset, size, reply);
        }
    }

    @Override
    public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) {
        if (nodeid == SNAPDIR) {
            SortedMap<Long, String> snaps = snapshotsAfter(offset);
            Attr a = snapdirAttr();
            boolean room = offset >= 1 || reply.add(".", new Entry(0, 0, a, 0, 0), 1);
            if (room && offset < 2) room = reply.add("..", new Entry(0, 0, a, 0, 0), 2);
            for (Map.Entry<Long, String> e : snaps.entrySet()) {
                if (!room) break;
                room = reply.add(e.getValue(), new Entry(0, 0, a, 0, 0), e.getKey() + 2);
            }
            reply.send();
        } else if (inView(nodeid)) {
            onView(nodeid, (v, fs, ino) -> fs.readdirplus(ctx, ino, fh, offset, size, ViewReplies.dirPlus(views, v, nodeid, reply)));
        } else {
            live.readdirplus(ctx, nodeid, fh, offset, size, reply);
        }
    }

    @Override
    public void releasedir(RequestContext ctx, long nodeid, long fh, int flags, StatusReply reply) {
        if (readOnly(nodeid)) reply.ok();
        else live.releasedir(ctx, nodeid, fh, flags, reply);
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        if (readOnly(nodeid)) reply.ok();
        else live.fsyncdir(ctx, nodeid, fh, datasync, reply);
    }

    // ---- attributes --------------------------------------------------------------------------------------

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        if (nodeid == SNAPDIR) reply.attr(snapdirAttr(), TIMEOUT);
        else if (inView(nodeid)) {
            onView(nodeid, (v, fs, ino) -> fs.getattr(ctx, ino, fh, ViewReplies.attrs(v, reply)));
        } else live.getattr(ctx, nodeid, fh, reply);
    }

    @Override
    public void statx(RequestContext ctx, long nodeid, long fh, int flags, int mask, StatxReply reply) {
        if (nodeid == SNAPDIR) reply.statx(snapdirAttr(), 0x7ff | 0x800, TIMEOUT);
        else if (inView(nodeid)) {
            onView(nodeid, (v, fs, ino) -> fs.statx(ctx, ino, fh, flags, mask, ViewReplies.statxs(v, reply)));
        } else live.statx(ctx, nodeid, fh, flags, mask, reply);
    }

    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr changes, AttrReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.EROFS);
        else live.setattr(ctx, nodeid, changes, reply);
    }

    @Override
    public void access(RequestContext ctx, long nodeid, int mask, StatusReply reply) {
        if (readOnly(nodeid) && (mask & 2) != 0) reply.error(Errno.EROFS);
        else if (readOnly(nodeid)) reply.ok();
        else live.access(ctx, nodeid, mask, reply);
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        live.statfs(ctx, readOnly(nodeid) ? Inodes.ROOT : nodeid, reply);
    }

    @Override
    public void syncfs(RequestContext ctx, long nodeid, StatusReply reply) {
        live.syncfs(ctx, readOnly(nodeid) ? Inodes.ROOT : nodeid, reply);
    }

    // ---- xattrs ------------------------------------------------------------------------------------------

    @Override
    public void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.EROFS);
        else live.setxattr(ctx, nodeid, name, value, flags, reply);
    }

    @Override
    public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.EROFS);
        else live.removexattr(ctx, nodeid, name, reply);
    }

    @Override
    public void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) {
        if (nodeid == SNAPDIR) reply.error(Errno.ENODATA);
        else if (inView(nodeid)) onView(nodeid, (v, fs, ino) -> fs.getxattr(ctx, ino, name, size, reply));
        else live.getxattr(ctx, nodeid, name, size, reply);
    }

    @Override
    public void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) {
        if (nodeid == SNAPDIR) reply.names(List.of());
        else if (inView(nodeid)) onView(nodeid, (v, fs, ino) -> fs.listxattr(ctx, ino, size, reply));
        else live.listxattr(ctx, nodeid, size, reply);
    }

    // ---- files -------------------------------------------------------------------------------------------

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        if (nodeid == SNAPDIR) reply.error(Errno.EISDIR);
        else if (inView(nodeid)) {
            if ((flags & 3) != 0 || (flags & PoolFsFiles.O_TRUNC) != 0) reply.error(Errno.EROFS);
            else onView(nodeid, (v, fs, ino) -> fs.open(ctx, ino, flags, reply));
        } else live.open(ctx, nodeid, flags, reply);
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        if (inView(nodeid)) onView(nodeid, (v, fs, ino) -> fs.read(ctx, ino, fh, offset, size, reply));
        else live.read(ctx, nodeid, fh, offset, size, reply);
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags, CountReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.EROFS);
        else live.write(ctx, nodeid, fh, offset, data, writeFlags, reply);
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        if (readOnly(nodeid)) reply.ok();
        else live.flush(ctx, nodeid, fh, lockOwner, reply);
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock, StatusReply reply) {
        if (inView(nodeid)) {
            reply.ok(); // a view keeps no state per handle (read-only: no append handles)
        } else if (nodeid == SNAPDIR) reply.ok();
        else live.release(ctx, nodeid, fh, flags, lockOwner, flockUnlock, reply);
    }

    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        if (readOnly(nodeid)) reply.ok();
        else live.fsync(ctx, nodeid, fh, datasync, reply);
    }

    @Override
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length, StatusReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.EROFS);
        else live.fallocate(ctx, nodeid, fh, mode, offset, length, reply);
    }

    @Override
    public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) {
        if (inView(nodeid)) onView(nodeid, (v, fs, ino) -> fs.lseek(ctx, ino, fh, offset, whence, reply));
        else live.lseek(ctx, nodeid, fh, offset, whence, reply);
    }

    @Override
    public void copyFileRange(RequestContext ctx, long nodeIn, long fhIn, long offIn, long nodeOut, long fhOut, long offOut,
                              long length, int flags, CountReply reply) {
        if (readOnly(nodeOut)) reply.error(Errno.EROFS);
        else if (readOnly(nodeIn)) reply.error(Errno.EXDEV); // the kernel falls back to read + write
        else live.copyFileRange(ctx, nodeIn, fhIn, offIn, nodeOut, fhOut, offOut, length, flags, reply);
    }

    @Override
    public void getlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, LockReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.ENOSYS);
        else live.getlk(ctx, nodeid, fh, owner, lock, reply);
    }

    @Override
    public void setlk(RequestContext ctx, long nodeid, long fh, long owner, FileLock lock, boolean sleep, StatusReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.ENOSYS);
        else live.setlk(ctx, nodeid, fh, owner, lock, sleep, reply);
    }

    @Override
    public void flock(RequestContext ctx, long nodeid, long fh, long owner, int op, StatusReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.ENOSYS);
        else live.flock(ctx, nodeid, fh, owner, op, reply);
    }

    @Override
    public void bmap(RequestContext ctx, long nodeid, int blocksize, long block, BmapReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.ENOSYS);
        else live.bmap(ctx, nodeid, blocksize, block, reply);
    }

    @Override
    public void ioctl(RequestContext ctx, long nodeid, long fh, int flags, int cmd, long arg, MemorySegment in, int outSize, IoctlReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.ENOTTY);
        else live.ioctl(ctx, nodeid, fh, flags, cmd, arg, in, outSize, reply);
    }

    @Override
    public void poll(RequestContext ctx, long nodeid, long fh, long kh, boolean schedule, int events, PollReply reply) {
        if (readOnly(nodeid)) reply.error(Errno.ENOSYS);
        else live.poll(ctx, nodeid, fh, kh, schedule, events, reply);
    }
}
