package dev.ringfuse.fs.volume;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.access.Caller;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.Notifier;
import dev.ringfuse.lowlevel.OpenFlags;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.Reply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.SetAttr;
import dev.ringfuse.lowlevel.StatFs;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.fs.io.ExclusiveUse;
import dev.ringfuse.sys.IoFlusher;
import dev.ringfuse.uring.UringException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * A directory holding one regular file, {@code volume}, whose bytes are an image file: a disk for
 * {@code losetup}. See the package documentation and {@code fs/DESIGN.md} (volume) for the I/O path.
 *
 * <p>Create with {@link #open(VolumeOptions)}; the image is closed when the session ends ({@link #destroy}).
 */
public final class VolumeFs implements LowLevelFileSystem {
    /** The node id of {@code /volume}. */
    public static final long VOLUME_ID = 2;
    /** The name of the one file. */
    public static final String NAME = "volume";

    private static final System.Logger LOG = System.getLogger(VolumeFs.class.getName());
    // Only this mount changes the image while it is served, so attributes and the name stay valid long.
    private static final long ENTRY_TIMEOUT = TimeUnit.HOURS.toNanos(1);
    private static final long ATTR_TIMEOUT = TimeUnit.MINUTES.toNanos(1);
    private static final int ALLOCATE = 0;
    private static final int O_DIRECT = dev.ringfuse.uring.OpenFlags.O_DIRECT; // 0200000 on arm64
    private static final int SUPPORTED_FALLOCATE = ImageCalls.FALLOC_FL_KEEP_SIZE | ImageCalls.FALLOC_FL_PUNCH_HOLE
            | ImageCalls.FALLOC_FL_ZERO_RANGE;

    private final VolumeOptions options;
    private final ImageFile image;
    private final FileStore store;
    private final VolumeAttrs attrs;
    private final Backing backing;
    private final ExclusiveUse claim;
    private volatile boolean grewWarned;
    private volatile Notifier notifier;

    private VolumeFs(VolumeOptions options, ImageFile image, ExclusiveUse claim) throws IOException {
        this.options = options;
        this.image = image;
        this.claim = claim;
        this.store = Files.getFileStore(image.path());
        this.attrs = new VolumeAttrs(image);
        this.backing = new Backing(options.passthrough(), image.fd());
    }

    /**
     * Opens (or creates) the image, claims it (an flock held until {@link #destroy} or the process ends:
     * exclusive, or shared with other read-only servers when {@link VolumeOptions#readOnly}), and returns the
     * filesystem serving it. Two servers writing one image through two loop devices would corrupt it.
     *
     * @throws ExclusiveUse.InUseException another server serves the image (the message names it)
     */
    public static VolumeFs open(VolumeOptions options) throws IOException {
        ImageFile image = openMarked(options);
        ExclusiveUse claim = null;
        try {
            claim = ExclusiveUse.claim(image.path(), options.readOnly(), "volume image");
            return new VolumeFs(options, image, claim);
        } catch (IOException | RuntimeException e) {
            if (claim != null) claim.close();
            image.close();
            throw e;
        }
    }

    /**
     * Opens the image from a thread marked PR_SET_IO_FLUSHER, so that the io_uring loop threads it starts
     * (and their io-wq workers) are marked too: a volume is a block device's backend. The transport threads
     * are marked by the mount option {@code io_flusher} ({@code MountOptions.withIoFlusher}), which
     * {@code ringfuse mount volume} sets.
     */
    private static ImageFile openMarked(VolumeOptions options) throws IOException {
        try {
            return IoFlusher.onMarkedThread(() -> ImageFile.open(options));
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** The options this volume was opened with. */
    public VolumeOptions options() { return options; }

    /** HANDLE_KILLPRIV_V2 was negotiated: every write and truncate by a caller without CAP_FSETID says so. */
    private volatile boolean killPrivilegesHere;

    /** True once open replies carry a passthrough backing id (after the first open). */
    public boolean passthroughActive() { return backing.active(); }

    @Override
    public void init(InitContext init) {
        backing.negotiate(init);
        // the image changes only through this mount, whose page cache the kernel keeps up to date itself;
        // AUTO_INVAL_DATA would drop pages holding writes still in flight (fs/DESIGN.md, coherence)
        init.wanted().remove(Capability.AUTO_INVAL_DATA);
        // Served writes: privileges die here, by tmpfs's rule (the kernel's own fallback for a buffered write,
        // a SETATTR, keeps setgid on a file that is not group-executable even for a writer outside the group).
        // Not with kernel passthrough: its writes never reach the server, so the fallback must stay on, and
        // open() covers the one case it misses (fs/DESIGN.md, "Set-ID bits on the volume").
        killPrivilegesHere = options.passthrough() == VolumeOptions.Passthrough.OFF && init.want(Capability.HANDLE_KILLPRIV_V2);
        notifier = init.notifier();
    }

    /** Root stands for CAP_FSETID, which a FUSE server cannot see; others by their groups (supplementary too). */
    private static boolean inGroup(RequestContext ctx, int gid) {
        return ctx.uid() == 0 || Caller.of(ctx).inGroup(gid);
    }

    @Override
    public void destroy() {
        backing.close();
        image.close();
        claim.close();
    }

    // ---- namespace: "/" and "/volume" ----

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        if (parent != ROOT_ID) throw new FuseException(Errno.ENOTDIR);
        if (!name.equals(NAME)) throw new FuseException(Errno.ENOENT);
        if (backing.active()) followPassthroughWrites();
        reply.entry(new Entry(VOLUME_ID, 0, attrs.volume(), ENTRY_TIMEOUT, ATTR_TIMEOUT));
    }

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        if (nodeid == VOLUME_ID && backing.active()) followPassthroughWrites();
        reply.attr(attrs.of(nodeid), ATTR_TIMEOUT);
    }

    // The kernel invalidates attributes after passthrough writes and asks again; the answer is the image's
    // real size. A fixed-size volume cannot stop a passthrough write past its end (the server never sees
    // it), so growth is reported once; the loop driver never writes past the size it attached with.
    private void followPassthroughWrites() {
        long before = image.size();
        long now = image.refreshSize();
        if (now > before && !options.resizable() && !grewWarned) {
            grewWarned = true;
            LOG.log(System.Logger.Level.WARNING, image.path() + " grew from " + before + " to " + now
                    + " bytes through a passthrough write past its end (fixed-size volumes are enforced only"
                    + " for served writes; use --passthrough off to refuse such writes with ENOSPC)");
        }
    }

    @Override
    public void setattr(RequestContext ctx, long nodeid, SetAttr changes, AttrReply reply) {
        if (options.readOnly()) throw new FuseException(Errno.EROFS);
        if (changes.hasSize()) {
            if (nodeid != VOLUME_ID) throw new FuseException(Errno.EISDIR);
            resize(changes.size());
        }
        // truncate by a caller without CAP_FSETID and every chown (HANDLE_KILLPRIV_V2), on the old group
        if (changes.killSuidGid() && nodeid == VOLUME_ID && attrs.killPrivileges(g -> inGroup(ctx, g))) dropCachedAttributes();
        attrs.apply(nodeid, changes, inGroup(ctx, attrs.groupAfter(changes)));
        reply.attr(attrs.of(nodeid), ATTR_TIMEOUT);
    }

    private void resize(long newSize) {
        if (newSize == image.size()) return;              // O_TRUNC of an empty image, or a no-op truncate
        if (!options.resizable()) {
            LOG.log(System.Logger.Level.WARNING, "refused to resize " + image.path() + " from " + image.size()
                    + " to " + newSize + " bytes: the volume has a fixed size (mount with --resizable to allow it)");
            throw new FuseException(Errno.EPERM);
        }
        image.truncate(newSize);
        attrs.touch();
    }

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        if (nodeid != ROOT_ID) throw new FuseException(Errno.ENOTDIR);
        reply.open(0, OpenFlags.CACHE_DIR);
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        String[] names = {".", "..", NAME};
        long[] inos = {ROOT_ID, ROOT_ID, VOLUME_ID};
        int[] types = {Attr.S_IFDIR, Attr.S_IFDIR, Attr.S_IFREG};
        for (int i = (int) offset; i < names.length; i++) {
            if (!reply.add(names[i], inos[i], types[i], i + 1)) break;
        }
        reply.send();
    }

    @Override
    public void statfs(RequestContext ctx, long nodeid, StatfsReply reply) {
        try {
            long bs = Math.max(512, store.getBlockSize());
            reply.statfs(new StatFs(store.getTotalSpace() / bs, store.getUnallocatedSpace() / bs,
                    store.getUsableSpace() / bs, 2, 0, (int) bs, 255, (int) bs));
        } catch (IOException e) {
            throw new FuseException(Errno.EIO, e.getMessage());
        }
    }

    // ---- the data path ----

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        if (nodeid != VOLUME_ID) throw new FuseException(Errno.EISDIR);
        if (options.readOnly() && (flags & 3) != 0) throw new FuseException(Errno.EROFS);
        // without HANDLE_KILLPRIV_V2 nothing kills setgid on a non-group-executable file for a writer outside
        // its group: it goes when such a writer opens for writing (earlier than tmpfs, never later)
        if ((flags & 3) != 0 && !killPrivilegesHere && nodeid == VOLUME_ID
                && attrs.killSetgidForOutsider(g -> inGroup(ctx, g))) dropCachedAttributes();
        int id = backing.idForOpen();
        if (id > 0) {
            // The kernel does the I/O on the image. No other flag: KEEP_CACHE with a backing id fails the
            // open with EIO (a page-cache mode on a passthrough inode).
            reply.open(0, 0, id);
        } else if ((flags & O_DIRECT) != 0) {
            // O_DIRECT opens (fio, qemu) bypass the cache in the kernel; saying so lets the kernel run their
            // writes in parallel (PARALLEL_DIRECT_WRITES is honoured only with DIRECT_IO). KEEP_CACHE too: an
            // open without it drops every cached page of the image, including pages whose buffered write
            // is still on its way here, and a read in that window caches the old bytes (issue 16).
            reply.open(0, OpenFlags.DIRECT_IO | OpenFlags.PARALLEL_DIRECT_WRITES | OpenFlags.KEEP_CACHE);
        } else {
            // Buffered opens, including the loop driver's (it turns O_DIRECT on later, on this same file):
            // every change to the image goes through this mount, so cached pages stay valid across opens.
            reply.open(0, OpenFlags.KEEP_CACHE);
        }
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        long end = image.size();
        int want = (int) Math.max(0, Math.min(size, end - offset));
        if (want == 0) {
            reply.commit(0);
            return;
        }
        readFrom(reply, reply.buffer(), offset, 0, want);
    }

    // Submits the rest of a read into the reply buffer itself (no copy); a short read before the end of the
    // image (rare: a signal, a concurrent truncate) resubmits the remainder.
    private void readFrom(ReadReply reply, MemorySegment buf, long offset, int done, int want) {
        image.read(buf.asSlice(done, want - done), offset + done).whenComplete((n, err) -> {
            if (err != null) {
                fail(reply, err);
            } else if (n == 0 || done + n == want) {
                reply.commit(done + n);
            } else {
                readFrom(reply, buf, offset, done + n, want);
            }
        });
    }

    @Override
    public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags,
                      CountReply reply) {
        long len = data.byteSize();
        // sent for every writer without CAP_FSETID through a DIRECT_IO open (fuse_direct_io), where the kernel
        // does not kill set-ID bits itself; the reply carries no attributes, so the cached ones must go
        if ((writeFlags & WRITE_KILL_SUIDGID) != 0 && attrs.killPrivileges(g -> inGroup(ctx, g))) dropCachedAttributes();
        if (!options.resizable()) {
            long room = image.size() - offset;
            if (room <= 0) throw new FuseException(Errno.ENOSPC);   // like writing past the end of a disk
            len = Math.min(len, room);
        }
        writeFrom(reply, data.asSlice(0, len), offset, 0);
    }

    /** Attribute-only (offset -1): the kernel takes no inode or page lock for it, so it is safe before the reply. */
    private void dropCachedAttributes() {
        Notifier nt = notifier;
        if (nt == null) return;
        try {
            nt.invalInode(VOLUME_ID, -1, 0);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "invalInode: " + e.getMessage());
        }
    }

    // The request buffer stays valid until the reply, so the ring writes from it directly.
    private void writeFrom(CountReply reply, MemorySegment data, long offset, long done) {
        image.write(data.asSlice(done), offset + done).whenComplete((n, err) -> {
            if (err != null) {
                fail(reply, err);
                return;
            }
            long total = done + n;
            if (total < data.byteSize() && n > 0) {
                writeFrom(reply, data, offset, total);
                return;
            }
            if (options.resizable()) image.grow(offset + total);
            attrs.touch();
            reply.count(total);
        });
    }

    @Override
    public void flush(RequestContext ctx, long nodeid, long fh, long lockOwner, StatusReply reply) {
        // close(2) is a durability point for many tools (dd, cp); with a clean image fdatasync costs little.
        sync(reply, false);
    }

    @Override
    public void fsync(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        sync(reply, !datasync && options.resizable());
    }

    // fdatasync is enough for a fixed-size image: the only metadata it would skip is timestamps. A resizable
    // volume asks for a full fsync so that a new size is durable too.
    private void sync(StatusReply reply, boolean full) {
        image.sync(full).whenComplete((v, err) -> {
            if (err != null) fail(reply, err);
            else reply.ok();
        });
    }

    @Override
    public void fsyncdir(RequestContext ctx, long nodeid, long fh, boolean datasync, StatusReply reply) {
        reply.ok();
    }

    @Override
    public void fallocate(RequestContext ctx, long nodeid, long fh, int mode, long offset, long length,
                          StatusReply reply) {
        if (nodeid != VOLUME_ID) throw new FuseException(Errno.EISDIR);
        if ((mode & ~SUPPORTED_FALLOCATE) != 0) throw new FuseException(Errno.EOPNOTSUPP);
        boolean keepsSize = (mode & ImageCalls.FALLOC_FL_KEEP_SIZE) != 0;
        long end = offset + length;
        if (!keepsSize && end > image.size()) {
            if (!options.resizable()) {
                LOG.log(System.Logger.Level.WARNING, "refused fallocate past the end of " + image.path()
                        + " (to " + end + " bytes): the volume has a fixed size (mount with --resizable)");
                throw new FuseException(Errno.EPERM);
            }
            image.fallocate(mode, offset, length);
            image.grow(end);
        } else {
            // discard (PUNCH_HOLE|KEEP_SIZE) and write-zeroes (ZERO_RANGE) from the loop driver land here
            image.fallocate(mode == ALLOCATE ? ImageCalls.FALLOC_FL_KEEP_SIZE : mode, offset, length);
        }
        attrs.touch();
        reply.ok();
    }

    private static void fail(Reply reply, Throwable err) {
        Throwable t = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        Errno e = t instanceof UringException u && Errno.of(u.errno()) != null ? Errno.of(u.errno()) : Errno.EIO;
        if (e == Errno.EIO) LOG.log(System.Logger.Level.WARNING, "image I/O failed", t);
        reply.error(e);
    }
}
