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

    private UringBlockDevice(Path path, UringLoop loop, AsyncFile file, long size, int alignment, boolean direct) {
        this.path = path;
        this.loop = loop;
        this.file = file;
        this.size = size;
        this.alignment = alignment;
        this.direct = direct;
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
    public void write(long offset, byte[] src, int off, int len) throws IOException {
        writeAll(List.of(new Write(offset, java.util.Arrays.copyOfRange(src, off, off + len))));
    }

    @Override
    public void writeAll(List<Write> writes) throws IOException {
        for (Write w : writes) checkRange(w.offset(), w.data().length);
        {
            Arena arena = Arena.ofAuto();
            List<CompletableFuture<Integer>> inFlight = new ArrayList<>(writes.size());
            List<MemorySegment> bufs = new ArrayList<>(writes.size());
            for (Write w : writes) {
                MemorySegment buf = arena.allocate(w.data().length, 4096);
                MemorySegment.copy(w.data(), 0, buf, ValueLayout.JAVA_BYTE, 0, w.data().length);
                bufs.add(buf);
                inFlight.add(file.write(buf, w.offset()));
            }
            IOException first = null;
            for (int i = 0; i < writes.size(); i++) {
                try {
                    int n = await(inFlight.get(i));
                    Write w = writes.get(i);
                    int done = n;
                    while (done < w.data().length) { // short write: rare, finish it synchronously
                        int m = await(file.write(bufs.get(i).asSlice(done), w.offset() + done));
                        if (m == 0) throw new IOException(name() + ": no progress writing at " + (w.offset() + done));
                        done += m;
                    }
                } catch (IOException e) {
                    if (first == null) first = e;
                }
            }
            if (first != null) throw first;
        }
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
            if (lockChannel != null) lockChannel.close();
        }
    }
}
