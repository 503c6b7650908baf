package dev.ringfuse.session;

import dev.ringfuse.Errno;
import dev.ringfuse.FileNames;
import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.kernel.Off;
import dev.ringfuse.lowlevel.Notifier;
import dev.ringfuse.protocol.Request;
import dev.ringfuse.sys.ErrnoException;
import dev.ringfuse.sys.GuardedFd;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;

/**
 * Notifications: fuse_out_header{len, error = code, unique = 0} and the payload, written in one write to
 * /dev/fuse (also in io_uring mode: the ring rejects unique 0). Rare, so each builds its message in a
 * confined arena.
 */
public final class NotifierImpl implements Notifier {
    private final GuardedFd dev;
    private final AtomicLong retrieveIds = new AtomicLong(1);
    private final ConcurrentHashMap<Long, CompletableFuture<byte[]>> retrievals = new ConcurrentHashMap<>();
    private volatile boolean ended;

    NotifierImpl(GuardedFd dev) {
        this.dev = dev;
    }

    private interface Body {
        int write(MemorySegment payload);
    }

    /** Sends an invalidation; false if the kernel had nothing cached for it (ENOENT). */
    private boolean invalidate(int code, int maxPayload, Body body) throws IOException {
        try {
            notify(code, maxPayload, body);
            return true;
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ENOENT.code()) return false;
            throw e;
        }
    }

    private void notify(int code, int maxPayload, Body body) throws IOException {
        if (ended) throw new ErrnoException("notify", Errno.ENOTCONN.code());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment msg = a.allocate(Off.SIZEOF_OUT_HEADER + (long) maxPayload, 8);
            int len = Off.SIZEOF_OUT_HEADER + body.write(msg.asSlice(Off.SIZEOF_OUT_HEADER));
            i32(msg, Off.OUT_HEADER_LEN, len);
            i32(msg, Off.OUT_HEADER_ERROR, code);
            i64(msg, Off.OUT_HEADER_UNIQUE, 0);
            long n = dev.write(msg, len);
            if (n < 0) throw new ErrnoException("notify " + code, (int) -n);
        }
    }

    private static byte[] name(String name) {
        return FileNames.encode(name);
    }

    @Override
    public boolean invalInode(long nodeid, long offset, long length) throws IOException {
        return invalidate(Fuse.NOTIFY_INVAL_INODE, Off.SIZEOF_NOTIFY_INVAL_INODE_OUT, p -> {
            i64(p, Off.NOTIFY_INVAL_INODE_OUT_INO, nodeid);
            i64(p, Off.NOTIFY_INVAL_INODE_OUT_OFF, offset);
            i64(p, Off.NOTIFY_INVAL_INODE_OUT_LEN, length);
            return Off.SIZEOF_NOTIFY_INVAL_INODE_OUT;
        });
    }

    @Override
    public boolean invalEntry(long parent, String name) throws IOException {
        return invalEntry(parent, name, 0);
    }

    @Override
    public boolean expireEntry(long parent, String name) throws IOException {
        return invalEntry(parent, name, Fuse.EXPIRE_ONLY);
    }

    private boolean invalEntry(long parent, String name, int flags) throws IOException {
        byte[] n = name(name);
        return invalidate(Fuse.NOTIFY_INVAL_ENTRY, Off.SIZEOF_NOTIFY_INVAL_ENTRY_OUT + n.length + 1, p -> {
            i64(p, Off.NOTIFY_INVAL_ENTRY_OUT_PARENT, parent);
            i32(p, Off.NOTIFY_INVAL_ENTRY_OUT_NAMELEN, n.length);
            i32(p, Off.NOTIFY_INVAL_ENTRY_OUT_FLAGS, flags);
            MemorySegment.copy(n, 0, p, ValueLayout.JAVA_BYTE, Off.SIZEOF_NOTIFY_INVAL_ENTRY_OUT, n.length);
            p.set(ValueLayout.JAVA_BYTE, Off.SIZEOF_NOTIFY_INVAL_ENTRY_OUT + n.length, (byte) 0);
            return Off.SIZEOF_NOTIFY_INVAL_ENTRY_OUT + n.length + 1;
        });
    }

    @Override
    public boolean delete(long parent, long child, String name) throws IOException {
        byte[] n = name(name);
        return invalidate(Fuse.NOTIFY_DELETE, Off.SIZEOF_NOTIFY_DELETE_OUT + n.length + 1, p -> {
            i64(p, Off.NOTIFY_DELETE_OUT_PARENT, parent);
            i64(p, Off.NOTIFY_DELETE_OUT_CHILD, child);
            i32(p, Off.NOTIFY_DELETE_OUT_NAMELEN, n.length);
            i32(p, Off.NOTIFY_DELETE_OUT_NAMELEN + 4, 0);
            MemorySegment.copy(n, 0, p, ValueLayout.JAVA_BYTE, Off.SIZEOF_NOTIFY_DELETE_OUT, n.length);
            p.set(ValueLayout.JAVA_BYTE, Off.SIZEOF_NOTIFY_DELETE_OUT + n.length, (byte) 0);
            return Off.SIZEOF_NOTIFY_DELETE_OUT + n.length + 1;
        });
    }

    @Override
    public void store(long nodeid, long offset, MemorySegment data) throws IOException {
        int size = Math.toIntExact(data.byteSize());
        notify(Fuse.NOTIFY_STORE, Off.SIZEOF_NOTIFY_STORE_OUT + size, p -> {
            i64(p, Off.NOTIFY_STORE_OUT_NODEID, nodeid);
            i64(p, Off.NOTIFY_STORE_OUT_OFFSET, offset);
            i32(p, Off.NOTIFY_STORE_OUT_SIZE, size);
            i32(p, Off.NOTIFY_STORE_OUT_SIZE + 4, 0);
            MemorySegment.copy(data, 0, p, Off.SIZEOF_NOTIFY_STORE_OUT, size);
            return Off.SIZEOF_NOTIFY_STORE_OUT + size;
        });
    }

    @Override
    public CompletableFuture<byte[]> retrieve(long nodeid, long offset, int size) throws IOException {
        long id = retrieveIds.getAndIncrement();
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        retrievals.put(id, f);
        try {
            notify(Fuse.NOTIFY_RETRIEVE, Off.SIZEOF_NOTIFY_RETRIEVE_OUT, p -> {
                i64(p, Off.NOTIFY_RETRIEVE_OUT_NOTIFY_UNIQUE, id);
                i64(p, Off.NOTIFY_RETRIEVE_OUT_NODEID, nodeid);
                i64(p, Off.NOTIFY_RETRIEVE_OUT_OFFSET, offset);
                i32(p, Off.NOTIFY_RETRIEVE_OUT_SIZE, size);
                i32(p, Off.NOTIFY_RETRIEVE_OUT_SIZE + 4, 0);
                return Off.SIZEOF_NOTIFY_RETRIEVE_OUT;
            });
        } catch (IOException e) {
            retrievals.remove(id);
            throw e;
        }
        return f;
    }

    /** The kernel's NOTIFY_REPLY: completes the matching retrieve. */
    void retrieved(Request.NotifyReply r) {
        CompletableFuture<byte[]> f = retrievals.remove(r.unique());
        if (f != null) f.complete(r.data().toArray(ValueLayout.JAVA_BYTE));
    }

    @Override
    public void pollWakeup(long kh) throws IOException {
        notify(Fuse.NOTIFY_POLL, Off.SIZEOF_NOTIFY_POLL_WAKEUP_OUT, p -> {
            i64(p, Off.NOTIFY_POLL_WAKEUP_OUT_KH, kh);
            return Off.SIZEOF_NOTIFY_POLL_WAKEUP_OUT;
        });
    }

    @Override
    public int openBacking(int fd) throws IOException {
        if (ended) throw new ErrnoException("backing open", Errno.ENOTCONN.code());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment map = a.allocate(Off.SIZEOF_BACKING_MAP, 8);
            i32(map, Off.BACKING_MAP_FD, fd);
            return dev.ioctl(Fuse.DEV_IOC_BACKING_OPEN, map, "FUSE_DEV_IOC_BACKING_OPEN");
        }
    }

    @Override
    public void closeBacking(int backingId) throws IOException {
        if (ended) return;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = a.allocate(ValueLayout.JAVA_INT);
            id.set(ValueLayout.JAVA_INT, 0, backingId);
            dev.ioctl(Fuse.DEV_IOC_BACKING_CLOSE, id, "FUSE_DEV_IOC_BACKING_CLOSE");
        }
    }

    void end() {
        ended = true;
        ErrnoException gone = new ErrnoException("retrieve", Errno.ENOTCONN.code());
        retrievals.values().forEach(f -> f.completeExceptionally(gone));
        retrievals.clear();
    }
}
