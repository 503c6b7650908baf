package dev.ringfuse.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.LseekReply;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.XattrReply;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * Serves a {@link PathFileSystem} as a {@link LowLevelFileSystem}: the path API is one implementation of
 * the low-level API, not a second dispatcher. The adapter keeps the inode table ({@link NodeTable}: node
 * ids, generations, lookup counts, paths), the handle table ({@link HandleTable}), answers lookup, forget
 * and readdirplus from getattr and readdir, and turns setattr into chmod/chown/truncate/utimens.
 *
 * <p>Lock order: {@code namespace} (write for calls that change names, read for all others, held across
 * the filesystem call so a path cannot change under it) → the node table's monitor.
 */
public final class PathFileSystemAdapter extends NamespaceCalls implements LowLevelFileSystem {
    static final ScopedValue<RequestContext> CALLER = ScopedValue.newInstance();

    /** Mounts {@code fs} with 1 s entry and attribute caching. */
    public PathFileSystemAdapter(PathFileSystem fs) {
        this(fs, Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    /** Mounts {@code fs} with the given kernel cache timeouts (zero: ask every time). */
    public PathFileSystemAdapter(PathFileSystem fs, Duration entryTimeout, Duration attrTimeout) {
        super(fs, entryTimeout.toNanos(), attrTimeout.toNanos());
    }

    /** Node ids the kernel currently holds, the root included (for tests and leak checks). */
    public int liveNodes() {
        return nodes.size();
    }

    /** Open files and directories (for tests and leak checks). */
    public int openHandles() {
        return handles.size();
    }

    @Override
    public boolean checksPermissions() {
        return fs.checksPermissions();
    }

    @Override
    public void init(InitContext init) {
        init.want(Capability.ASYNC_READ);
        init.want(Capability.READDIRPLUS);
        init.want(Capability.READDIRPLUS_AUTO);
        init.want(Capability.PARALLEL_DIROPS);
        init.timeGranularity(1);
        fs.init(init);
    }

    @Override
    public void destroy() {
        fs.destroy();
        nodes.clear();
    }

    @Override
    public void forget(long nodeid, long nlookup) {
        nodes.forget(nodeid, nlookup);
    }

    // ---- attributes --------------------------------------------------------------------------------------

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        read(ctx, () -> {
            FileStat st = fs.getattr(nodes.path(nodeid), fsFh(nodeid, fh));
            reply.attr(st.toAttr(nodeid), attrNanos(st));
        });
    }

    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr c, AttrReply reply) {
        read(ctx, () -> {
            String path = nodes.path(nodeid);
            long fh = fsFh(nodeid, c.hasFh() ? c.fh() : 0);
            if (c.hasMode()) fs.chmod(path, c.mode() & 07777, fh);
            // chown(-1, -1) arrives with no change bits at all, yet is a chown (it updates ctime)
            boolean noChange = (c.valid() & ~(SetAttr.FATTR_CTIME | SetAttr.FATTR_FH | SetAttr.FATTR_LOCKOWNER)) == 0;
            if (c.hasUid() || c.hasGid() || noChange) fs.chown(path, c.hasUid() ? c.uid() : -1, c.hasGid() ? c.gid() : -1, fh);
            if (c.hasSize()) fs.truncate(path, c.size(), fh);
            if (c.hasAtime() || c.hasMtime() || c.atimeNow() || c.mtimeNow()) {
                int an = c.atimeNow() ? PathFileSystem.UTIME_NOW : c.hasAtime() ? c.atimeNsec() : PathFileSystem.UTIME_OMIT;
                int mn = c.mtimeNow() ? PathFileSystem.UTIME_NOW : c.hasMtime() ? c.mtimeNsec() : PathFileSystem.UTIME_OMIT;
                fs.utimens(path, c.atimeSec(), an, c.mtimeSec(), mn, fh);
            }
            FileStat st = fs.getattr(path, fh);
            reply.attr(st.toAttr(nodeid), attrNanos(st));
        });
    }

    @Override
    public void readlink(RequestContext ctx, long nodeid, ReadlinkReply reply) {
        read(ctx, () -> reply.target(fs.readlink(nodes.path(nodeid))));
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        read(ctx, () -> reply.statfs(fs.statfs(nodes.path(nodeid))));
    }

    @Override
    public void access(RequestContext ctx, long nodeid, int mask, StatusReply reply) {
        ok(ctx, reply, () -> fs.access(nodes.path(nodeid), mask));
    }

    // ---- xattrs ------------------------------------------------------------------------------------------

    @Override
    public void setxattr(RequestContext ctx, long nodeid, String name, MemorySegment value, int flags, StatusReply reply) {
        ok(ctx, reply, () -> fs.setxattr(nodes.path(nodeid), name, value.toArray(ValueLayout.JAVA_BYTE), flags));
    }

    @Override
    public void getxattr(RequestContext ctx, long nodeid, String name, int size, XattrReply reply) {
        read(ctx, () -> reply.value(fs.getxattr(nodes.path(nodeid), name)));
    }

    @Override
    public void listxattr(RequestContext ctx, long nodeid, int size, XattrReply reply) {
        // the kernel passes a server's list on as it is: trusted.* names are root's, as on a local filesystem
        read(ctx, () -> reply.names(fs.listxattr(nodes.path(nodeid)).stream()
                .filter(n -> dev.ringfuse.access.Permissions.listable(dev.ringfuse.access.Caller.of(ctx), n)).toList()));
    }

    @Override
    public void removexattr(RequestContext ctx, long nodeid, String name, StatusReply reply) {
        ok(ctx, reply, () -> fs.removexattr(nodes.path(nodeid), name));
    }

    // ---- open files --------------------------------------------------------------------------------------

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        read(ctx, () -> reply.open(handles.add(nodeid, fs.open(nodes.path(nodeid), flags)), 0));
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        read(ctx, () -> {
            // the filesystem fills the transport's reply buffer directly: no copy
            int n = fs.read(nodes.path(nodeid), reply.buffer().asSlice(0, size), offset, handles.fsFh(fh));
            reply.commit(Math.max(0, Math.min(n, size)));
        });
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags, CountReply reply) {
        read(ctx, () -> reply.count(fs.write(nodes.path(nodeid), data, offset, handles.fsFh(fh))));
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        ok(ctx, reply, () -> fs.flush(nodes.path(nodeid), handles.fsFh(fh)));
    }

    @Override
    public void release(RequestContext ctx, long nodeid, long fh, int flags, long lockOwner, boolean flockUnlock, StatusReply reply) {
        HandleTable.Open o = handles.remove(fh);
        read(ctx, () -> {
            // the kernel ignores release errors; a failing filesystem must still lose the handle
            if (o != null) quietly(() -> fs.release(nodes.path(nodeid), o.fsFh, flags));
            reply.ok();
        });
    }

    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        ok(ctx, reply, () -> fs.fsync(nodes.path(nodeid), datasync, handles.fsFh(fh)));
    }

    @Override
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length, StatusReply reply) {
        ok(ctx, reply, () -> fs.fallocate(nodes.path(nodeid), mode, offset, length, handles.fsFh(fh)));
    }

    @Override
    public void lseek(RequestContext ctx, long nodeid, long fh, long offset, int whence, LseekReply reply) {
        read(ctx, () -> reply.offset(fs.lseek(nodes.path(nodeid), offset, whence, handles.fsFh(fh))));
    }

    @Override
    public void copyFileRange(RequestContext ctx, long nodeIn, long fhIn, long offIn, long nodeOut, long fhOut,
                              long offOut, long length, int flags, CountReply reply) {
        read(ctx, () -> reply.count(fs.copyFileRange(nodes.path(nodeIn), handles.fsFh(fhIn), offIn,
                nodes.path(nodeOut), handles.fsFh(fhOut), offOut, length, flags)));
    }

    // ---- directories -------------------------------------------------------------------------------------

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        read(ctx, () -> {
            long fsFh;
            try {
                fsFh = fs.opendir(nodes.path(nodeid));
            } catch (FuseException e) {
                if (e.errno() != Errno.ENOSYS) throw e;
                fsFh = 0;
            }
            reply.open(handles.add(nodeid, fsFh), 0);
        });
    }

    @Override
    public void releasedir(RequestContext ctx, long nodeid, long fh, int flags, StatusReply reply) {
        HandleTable.Open o = handles.remove(fh);
        ok(ctx, reply, () -> {
            if (o != null) quietly(() -> fs.releasedir(nodes.path(nodeid), o.fsFh));
        });
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        read(ctx, () -> {
            var list = listing(nodes.path(nodeid), fh, offset);
            for (int i = (int) offset; i < list.size(); i++) {
                HandleTable.Listed l = list.get(i);
                long ino = l.stat() != null && l.stat().ino() != 0 ? l.stat().ino() : UNKNOWN_INO;
                int type = l.stat() != null ? l.stat().mode() & Attr.S_IFMT : 0;
                if (!reply.add(l.name(), ino, type, i + 1)) break;
            }
            reply.send();
        });
    }

    @Override
    public void readdirplus(RequestContext ctx, long nodeid, long fh, long offset, int size, DirPlusReply reply) {
        read(ctx, () -> {
            String dir = nodes.path(nodeid);
            var list = listing(dir, fh, offset);
            for (int i = (int) offset; i < list.size(); i++) {
                String name = list.get(i).name();
                if (name.equals(".") || name.equals("..")) {
                    // listed, not instantiated: node id 0 adds no lookup; the same d_ino as plain readdir
                    Attr a = fs.getattr(dir, PathFileSystem.NO_FH).ino(UNKNOWN_INO).toAttr(nodeid);
                    if (!reply.add(name, new Entry(0, 0, a, 0, 0), i + 1)) break;
                    continue;
                }
                FileStat st;
                try {
                    st = fs.getattr(NodeTable.join(dir, name), PathFileSystem.NO_FH);
                } catch (FuseException gone) {
                    continue; // removed since the listing was taken
                }
                NodeTable.Node n = nodes.ref(nodeid, name);
                if (!reply.add(name, entry(n, st), i + 1)) {
                    nodes.forget(n.id, 1);
                    break;
                }
            }
            reply.send();
        });
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        ok(ctx, reply, () -> fs.fsync(nodes.path(nodeid), datasync, handles.fsFh(fh)));
    }
}
