package dev.ringfuse.pool.io;

import dev.ringfuse.uring.AsyncFile;
import dev.ringfuse.uring.OpenFlags;
import dev.ringfuse.uring.UringException;
import dev.ringfuse.uring.UringLoop;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An image file or block device driven through ringfuse's own io_uring binding ({@link UringLoop} +
 * {@link AsyncFile}), opened with O_DIRECT: the page cache is bypassed, so a flush (fdatasync) is the only
 * thing between a completed write and the medium. Buffers are page-aligned native memory; a batch of writes
 * is submitted at once, all in flight together. Every operation has a deadline: a device that stops
 * answering makes I/O fail with EIO-like errors instead of hanging callers.
 *
 * <p>I/O of up to a record (1 MiB) goes through <b>registered buffers</b> (IORING_REGISTER_BUFFERS,
 * READ_FIXED/WRITE_FIXED: the kernel pins them once instead of on every request); a batch keeps as many writes
 * in flight as there are free buffers, finishing the oldest to free one. When none is free, or registration
 * was refused (RLIMIT_MEMLOCK), a request uses a buffer of its own.
 */
public final class UringBlockDevice implements BlockDevice {
    private static final long DEADLINE_SECONDS = 60;
    private final Path path;
    private final UringLoop loop;
    private final AsyncFile file;
    private final long size;
    private final int alignment;
    private final boolean direct;
    private java.nio.channels.FileChannel lockChannel;
    static final int FIXED_SIZE = 1 << 20;
    static final int FIXED_COUNT = Integer.getInteger("pool.uring.buffers", 32);
    private Arena fixedArena;
    private MemorySegment[] fixed = new MemorySegment[0];
    private final java.util.concurrent.ConcurrentLinkedQueue<Integer> freeFixed = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private UringBlockDevice(Path path, UringLoop loop, AsyncFile file, long size, int alignment, boolean direct) {
        this.path = path;
        this.loop = loop;
        this.file = file;
        this.size = size;
        this.alignment = alignment;
        this.direct = direct;
        registerBuffers();
    }

    private void registerBuffers() {
        if (FIXED_COUNT <= 0) return;
        Arena arena = Arena.ofShared();
        try {
            MemorySegment[] bufs = new MemorySegment[FIXED_COUNT];
            for (int i = 0; i < bufs.length; i++) bufs[i] = arena.allocate(FIXED_SIZE, 4096);
            loop.registerBuffers(bufs);
            fixed = bufs;
            fixedArena = arena;
            for (int i = 0; i < bufs.length; i++) freeFixed.add(i);
        } catch (UringException | RuntimeException e) {
            arena.close(); // plain buffers per request still work
        }
    }

    /** Registered buffers in use (0 when idle): tests check that none leaks. */
    public int fixedInUse() { return fixed.length - freeFixed.size(); }

    /** Whether buffers are registered with the ring. */
    public boolean registered() { return fixed.length > 0; }

    private Integer lease(int len) {
        return len <= FIXED_SIZE ? freeFixed.poll() : null;
    }

    /** Opens {@code path} read-write with O_DIRECT (falling back to buffered I/O where O_DIRECT is refused). */
    public static UringBlockDevice open(Path path) throws IOException {
        if (!Files.exists(path)) throw new IOException(path + ": no such file or device");
        long size;
        try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "r")) {
            size = raf.length(); // the JDK asks BLKGETSIZE64 for block devices
        }
        // taken after every other open/close of the path in this process: closing any descriptor of a file
        // drops the process's fcntl locks on it
        // one user at a time: a second process (or a second open in this one) would corrupt the pool
        java.nio.channels.FileChannel lock = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE);
        try {
            if (lock.tryLock() == null) throw new IOException(path + " is in use by another process (a mounted pool?)");
        } catch (java.nio.channels.OverlappingFileLockException e) {
            lock.close();
            throw new IOException(path + " is already open in this process");
        } catch (IOException e) {
            lock.close();
            throw e;
        }
        try {
            UringBlockDevice d = openLocked(path, size);
            d.lockChannel = lock;
            return d;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private static UringBlockDevice openLocked(Path path, long size) throws IOException {
        int lbs = DeviceInfo.logicalBlockSize(path);
        if (lbs > 4096) throw new IOException(path + ": logical block size " + lbs + " > 4096 is not supported");
        UringLoop loop = UringLoop.start(64);
        try {
            AsyncFile f;
            boolean direct = true;
            try {
                f = loop.open(path, OpenFlags.O_RDWR | OpenFlags.O_DIRECT, 0);
            } catch (UringException e) {
                if (e.errno() != 22) throw e; // EINVAL: this filesystem has no O_DIRECT
                f = loop.open(path, OpenFlags.O_RDWR, 0);
                direct = false;
            }
            return new UringBlockDevice(path, loop, f, size, Math.max(lbs, 512), direct);
        } catch (IOException | RuntimeException e) {
            loop.close();
            throw e;
        }
    }

    public boolean direct() { return direct; }
    @Override public long size() { return size; }
    @Override public int alignment() { return alignment; }
    @Override public String name() { return path.toString(); }

    @Override
    public void read(long offset, byte[] dst, int off, int len) throws IOException {
        checkRange(offset, len);
        Integer idx = lease(len);
        if (idx != null) {
            MemorySegment buf = fixed[idx].asSlice(0, len);
            CompletableFuture<Integer> f = null;
            try {
                int done = 0;
                while (done < len) {
                    f = file.readFixed(buf.asSlice(done), offset + done, idx);
                    int n = await(f);
                    if (n == 0) throw new IOException(name() + ": short read at " + (offset + done));
                    done += n;
                }
                MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, dst, off, len);
            } finally {
                // a timed-out request keeps its buffer until the kernel is done with it
                if (f == null || f.isDone()) freeFixed.add(idx);
                else f.whenComplete((r, e) -> freeFixed.add(idx));
            }
            return;
        }
        {
            // an automatic arena: the request holds the buffer until its completion, so memory is never
            // freed under the kernel, even when a wait ends early
            MemorySegment buf = Arena.ofAuto().allocate(len, 4096);
            int done = 0;
            while (done < len) {
                int n = await(file.read(buf.asSlice(done), offset + done));
                if (n == 0) throw new IOException(name() + ": short read at " + (offset + done));
                done += n;
            }
            MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, dst, off, len);
        }
    }

    @Override
    public CompletableFuture<byte[]> readAsync(long offset, int len) {
        try {
            checkRange(offset, len);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        Integer idx = lease(len);
        if (idx != null) {
            MemorySegment buf = fixed[idx].asSlice(0, len);
            return file.readFixed(buf, offset, idx).handle((n, err) -> {
                try {
                    if (err != null) throw new CompletionException(err);
                    if (n != len) throw new CompletionException(new IOException(name() + ": short read at " + offset));
                    return buf.toArray(ValueLayout.JAVA_BYTE);
                } finally {
                    freeFixed.add(idx);
                }
            });
        }
        MemorySegment buf = Arena.ofAuto().allocate(len, 4096);
        return file.read(buf, offset).thenApply(n -> {
            byte[] out = new byte[len];
            // a short read (rare) is finished by the synchronous path of the caller
            MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, out, 0, n == len ? len : 0);
            if (n != len) throw new CompletionException(new IOException(name() + ": short read at " + offset));
            return out;
        });
    }

    @Override
    public <T> CompletableFuture<T> readAsync(long offset, int len, java.util.concurrent.Executor ex,
                                              java.util.function.Function<MemorySegment, T> use) {
        try {
            checkRange(offset, len);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        Integer idx = lease(len);
        MemorySegment buf = idx != null ? fixed[idx].asSlice(0, len) : Arena.ofAuto().allocate(len, 4096);
        CompletableFuture<Integer> read = idx != null ? file.readFixed(buf, offset, idx) : file.read(buf, offset);
        // the buffer goes back only after use: the kernel is done with it once the read completed; if ex refuses
        // the use (shut down: `pool verify` gave up on a slow read), the future fails and the buffer goes back too
        java.util.concurrent.Executor run = idx == null ? ex : r -> {
            try {
                ex.execute(r);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                freeFixed.add(idx);
                throw e;
            }
        };
        return read.handleAsync((n, err) -> {
            try {
                if (err != null) throw new CompletionException(err);
                if (n != len) throw new CompletionException(new IOException(name() + ": short read at " + offset));
                return use.apply(buf);
            } finally {
                if (idx != null) freeFixed.add(idx);
            }
        }, run);
    }

    @Override
    public void write(long offset, byte[] src, int off, int len) throws IOException {
        writeAll(List.of(new Write(offset, java.util.Arrays.copyOfRange(src, off, off + len))));
    }

    /** One device write of a batch in flight (one or more adjacent writes): buffer, registered index or null, future. */
    private record InFlight(long offset, int len, MemorySegment buf, Integer idx, CompletableFuture<Integer> f) {}

    /**
     * Writes a batch, all in flight at once. Writes that follow each other on the device (a commit's records
     * are allocated one after the other) go out as one request of up to a registered buffer (1 MiB): 128 KiB
     * records made eight requests per MiB before, each with its own buffer, submission and completion.
     */
    @Override
    public void writeAll(List<Write> writes) throws IOException {
        for (Write w : writes) checkRange(w.offset(), w.data().length);
        List<Write> sorted = new ArrayList<>(writes);
        sorted.sort(java.util.Comparator.comparingLong(Write::offset));
        java.util.ArrayDeque<InFlight> inFlight = new java.util.ArrayDeque<>();
        int heldHere = 0; // registered buffers this batch's writes hold
        IOException first = null;
        try {
            for (int i = 0; i < sorted.size(); ) {
                int j = i + 1;
                long end = sorted.get(i).offset() + sorted.get(i).data().length;
                int len = sorted.get(i).data().length;
                while (j < sorted.size() && sorted.get(j).offset() == end && len + sorted.get(j).data().length <= FIXED_SIZE) {
                    len += sorted.get(j).data().length;
                    end += sorted.get(j).data().length;
                    j++;
                }
                Integer idx = lease(len);
                // all registered buffers busy: finish the oldest writes (they are ahead in the device queue anyway)
                // (only while this batch holds some: read-ahead may hold them all, and waiting would serialize)
                while (idx == null && len <= FIXED_SIZE && heldHere > 0) {
                    InFlight done = inFlight.poll();
                    if (done.idx() != null) heldHere--;
                    first = finish(done, first);
                    idx = lease(len);
                }
                if (idx != null) heldHere++;
                MemorySegment buf = idx != null ? fixed[idx].asSlice(0, len) : Arena.ofAuto().allocate(len, 4096);
                long at = sorted.get(i).offset();
                for (int k = i, pos = 0; k < j; k++) {
                    byte[] d = sorted.get(k).data();
                    MemorySegment.copy(d, 0, buf, ValueLayout.JAVA_BYTE, pos, d.length);
                    pos += d.length;
                }
                inFlight.add(new InFlight(at, len, buf, idx, idx != null ? file.writeFixed(buf, at, idx) : file.write(buf, at)));
                i = j;
            }
        } finally {
            while (!inFlight.isEmpty()) first = finish(inFlight.poll(), first);
        }
        if (first != null) throw first;
    }

    /** Waits for one write (finishing a short one), frees its registered buffer; returns the first error so far. */
    private IOException finish(InFlight op, IOException first) {
        CompletableFuture<Integer> last = op.f();
        try {
            int done = await(op.f());
            while (done < op.len()) { // short write: rare, finish it synchronously
                last = file.write(op.buf().asSlice(done), op.offset() + done);
                int m = await(last);
                if (m == 0) throw new IOException(name() + ": no progress writing at " + (op.offset() + done));
                done += m;
            }
        } catch (IOException e) {
            if (first == null) first = e;
        } finally {
            if (op.idx() != null) { // a timed-out write keeps its buffer until the kernel is done with it
                CompletableFuture.allOf(op.f(), last).whenComplete((r, e) -> freeFixed.add(op.idx()));
            }
        }
        return first;
    }

    @Override
    public void flush() throws IOException {
        await(file.fsync(true));
    }

    private <T> T await(CompletableFuture<T> f) throws IOException {
        boolean interrupted = false;
        try {
            return f.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | CompletionException e) {
            Throwable c = e.getCause();
            throw new IOException(name() + ": " + c.getMessage(), c);
        } catch (TimeoutException e) {
            throw new IOException(name() + ": I/O timed out after " + DEADLINE_SECONDS + " s");
        } catch (InterruptedException e) {
            // never abandon I/O in flight (a commit cut short loses what the caller was promised): wait on
            interrupted = true;
            return await(f);
        } finally {
            if (interrupted && !Thread.currentThread().isInterrupted()) Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            file.close();
        } finally {
            loop.close();
            if (fixedArena != null) fixedArena.close(); // the ring (and its registration) is gone
            if (lockChannel != null) lockChannel.close();
        }
    }
}
