package dev.ringfuse.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatusReply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The half of {@link PathFileSystemAdapter} that changes or resolves names (lookup, the creating calls,
 * unlink, rmdir, rename), plus the state and helpers both halves share.
 */
abstract sealed class NamespaceCalls implements LowLevelFileSystem permits PathFileSystemAdapter {
    /** readdir's d_ino when the filesystem gave no inode number (libfuse's FUSE_UNKNOWN_INO). */
    static final long UNKNOWN_INO = 0xffffffffL;
    private static final int RENAME_EXCHANGE = 2;

    final PathFileSystem fs;
    final NodeTable nodes = new NodeTable();
    final HandleTable handles = new HandleTable();
    private final long entryNanos;
    private final long attrNanos;
    private final ReentrantReadWriteLock namespace = new ReentrantReadWriteLock();

    NamespaceCalls(PathFileSystem fs, long entryNanos, long attrNanos) {
        this.fs = fs;
        this.entryNanos = entryNanos;
        this.attrNanos = attrNanos;
    }

    /** Runs {@code body} as {@code ctx} under the shared namespace lock (paths stay put). */
    final void read(RequestContext ctx, Runnable body) {
        run(namespace.readLock(), ctx, body);
    }

    /** Runs {@code body} as {@code ctx} under the exclusive namespace lock (it changes names). */
    final void write(RequestContext ctx, Runnable body) {
        run(namespace.writeLock(), ctx, body);
    }

    private static void run(Lock lock, RequestContext ctx, Runnable body) {
        lock.lock();
        try {
            ScopedValue.where(PathFileSystemAdapter.CALLER, ctx).run(body);
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code call} as {@code ctx} under the shared lock and answers ok. */
    final void ok(RequestContext ctx, StatusReply reply, Runnable call) {
        read(ctx, () -> {
            call.run();
            reply.ok();
        });
    }

    static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException ignored) {
            // release errors reach nobody: the kernel has already closed the file
        }
    }

    /**
     * Attribute timeout: none for files with several links, which are several nodes here (one per path),
     * so a change made through one name must not be hidden by the cache of another.
     */
    final long attrNanos(FileStat st) {
        return st.nlink() > 1 && !st.isDirectory() ? 0 : attrNanos;
    }

    final Entry entry(NodeTable.Node n, FileStat st) {
        long t = attrNanos(st);
        return new Entry(n.id, n.generation, st.toAttr(n.id), t == 0 ? 0 : entryNanos, t);
    }

    /**
     * The filesystem's handle for a call on {@code nodeid}: the open file's, else (for an unlinked or
     * replaced file, whose path now names nothing or another file) that of any open file of the node.
     */
    final long fsFh(long nodeid, long fh) {
        long f = handles.fsFh(fh);
        return f == PathFileSystem.NO_FH && nodes.detached(nodeid) ? handles.anyFor(nodeid) : f;
    }

    /** getattr of the new path, then one lookup on its node. */
    private Entry lookedUp(long parent, String name) {
        FileStat st = fs.getattr(nodes.childPath(parent, name), PathFileSystem.NO_FH);
        return entry(nodes.ref(parent, name), st);
    }

    /** The listing of an open directory, taken afresh when read from the start. */
    final List<HandleTable.Listed> listing(String dir, long fh, long offset) {
        HandleTable.Open o = handles.get(fh);
        if (o == null) return take(dir, PathFileSystem.NO_FH);
        synchronized (o) {
            if (offset == 0 || o.listing == null) o.listing = take(dir, o.fsFh);
            return o.listing;
        }
    }

    private List<HandleTable.Listed> take(String dir, long fsFh) {
        List<HandleTable.Listed> list = new ArrayList<>();
        list.add(new HandleTable.Listed(".", null));
        list.add(new HandleTable.Listed("..", null));
        fs.readdir(dir, (name, stat) -> {
            if (!name.equals(".") && !name.equals("..")) list.add(new HandleTable.Listed(name, stat));
        }, fsFh);
        return list;
    }

    // ---- names -------------------------------------------------------------------------------------------

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        read(ctx, () -> {
            Entry e;
            try {
                e = lookedUp(parent, name);
            } catch (FuseException ex) {
                if (ex.errno() != Errno.ENOENT || entryNanos == 0) throw ex;
                reply.negative(entryNanos);
                return;
            }
            reply.entry(e);
        });
    }

    @Override
    public void mknod(RequestContext ctx, long parent, String name, int mode, int rdev, EntryReply reply) {
        write(ctx, () -> {
            fs.mknod(nodes.childPath(parent, name), mode, rdev);
            reply.entry(lookedUp(parent, name));
        });
    }

    @Override
    public void mkdir(RequestContext ctx, long parent, String name, int mode, EntryReply reply) {
        write(ctx, () -> {
            fs.mkdir(nodes.childPath(parent, name), mode);
            reply.entry(lookedUp(parent, name));
        });
    }

    @Override
    public void symlink(RequestContext ctx, long parent, String name, String target, EntryReply reply) {
        write(ctx, () -> {
            fs.symlink(target, nodes.childPath(parent, name));
            reply.entry(lookedUp(parent, name));
        });
    }

    @Override
    public void link(RequestContext ctx, long nodeid, long newParent, String newName, EntryReply reply) {
        write(ctx, () -> {
            String path = nodes.childPath(newParent, newName);
            fs.link(nodes.path(nodeid), path);
            FileStat st = fs.getattr(path, PathFileSystem.NO_FH);
            reply.entry(entry(nodes.alias(nodeid, newParent, newName), st));
        });
    }

    @Override
    public void create(RequestContext ctx, long parent, String name, int mode, int flags, CreateReply reply) {
        write(ctx, () -> {
            long fsFh = fs.create(nodes.childPath(parent, name), mode, flags);
            Entry e;
            try {
                e = lookedUp(parent, name);
            } catch (RuntimeException ex) {
                quietly(() -> fs.release(NodeTable.join(nodes.path(parent), name), fsFh, flags));
                throw ex;
            }
            reply.created(e, handles.add(e.nodeid(), fsFh), 0);
        });
    }

    @Override
    public void unlink(RequestContext ctx, long parent, String name, StatusReply reply) {
        remove(ctx, parent, name, reply, fs::unlink);
    }

    @Override
    public void rmdir(RequestContext ctx, long parent, String name, StatusReply reply) {
        remove(ctx, parent, name, reply, fs::rmdir);
    }

    private void remove(RequestContext ctx, long parent, String name, StatusReply reply, java.util.function.Consumer<String> op) {
        write(ctx, () -> {
            op.accept(nodes.childPath(parent, name));
            nodes.detach(parent, name);
            reply.ok();
        });
    }

    @Override
    public void rename(RequestContext ctx, long parent, String name, long newParent, String newName, int flags, StatusReply reply) {
        write(ctx, () -> {
            fs.rename(nodes.childPath(parent, name), nodes.childPath(newParent, newName), flags);
            nodes.rename(parent, name, newParent, newName, (flags & RENAME_EXCHANGE) != 0);
            reply.ok();
        });
    }
}
