package dev.ringfuse.fs.volume;

import dev.ringfuse.fs.io.ThreadRings;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.volume.VolumeOptions.Io;
import dev.ringfuse.uring.AsyncFile;
import dev.ringfuse.uring.OpenFlags;
import dev.ringfuse.uring.UringException;
import dev.ringfuse.uring.UringLoop;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The image behind {@code /volume}: one descriptor opened through io_uring, served by one or more
 * {@link UringLoop}s. Every loop wraps the same descriptor, so the lane a request uses only spreads
 * submission and completion work over the loop threads; none of them owns the file.
 *
 * <p>Reads and writes are handed to a loop and complete there ({@link Io#ASYNC}); in {@link Io#SYNC}
 * mode the calling thread waits for the completion, so the continuation runs on the caller instead.
 *
 * <p>Thread-safe. Buffers passed in must be native and stay valid until the future completes.
 */
final class ImageFile implements AutoCloseable {
    private final Path path;
    private final UringLoop[] loops;
    private final AsyncFile[] lanes;
    private final boolean sync;
    private final ThreadRings inline;     // non-null in INLINE mode
    private final AtomicLong size;

    private ImageFile(Path path, UringLoop[] loops, AsyncFile[] lanes, Io io, long size) {
        this.path = path;
        this.loops = loops;
        this.lanes = lanes;
        this.sync = io == Io.SYNC;
        this.inline = io == Io.INLINE ? new ThreadRings(lanes[0].fd()) : null;
        this.size = new AtomicLong(size);
    }

    /**
     * Opens (and with {@code create}, creates sparse) the image. An existing image keeps its size; if
     * {@code expectedSize} is given it must match, so a typo in {@code --size} cannot silently serve a
     * different-sized disk.
     */
    static ImageFile open(VolumeOptions o) throws IOException {
        Path p = o.image().toAbsolutePath();
        boolean creating = o.create() && !Files.exists(p);
        if (!creating && !Files.isRegularFile(p)) {
            throw new IOException(p + ": no such image (use --create --size N to make one)");
        }
        UringLoop[] loops = new UringLoop[o.rings()];
        AsyncFile[] lanes = new AsyncFile[o.rings()];
        try {
            // Depth 256: enough for the kernel's max_background plus the synchronous requests of every
            // transport thread; SQ overflow is handled by the loop anyway.
            for (int i = 0; i < loops.length; i++) loops[i] = UringLoop.start(256);
            int flags = OpenFlags.O_RDWR | (creating ? OpenFlags.O_CREAT | OpenFlags.O_EXCL : 0);
            lanes[0] = loops[0].open(p, flags, 0644);
            for (int i = 1; i < lanes.length; i++) lanes[i] = loops[i].wrap(lanes[0].fd());
            if (creating) ImageCalls.ftruncate(lanes[0].fd(), o.size());   // sparse: no blocks allocated
            long actual = Files.size(p);
            if (!creating && o.size() > 0 && o.size() != actual) {
                throw new IOException(p + " is " + actual + " bytes but --size says " + o.size()
                        + "; resize the image (truncate -s) or leave --size out");
            }
            return new ImageFile(p, loops, lanes, o.io(), actual);
        } catch (IOException | RuntimeException e) {
            closeAll(loops, lanes);
            throw e;
        }
    }

    private static void closeAll(UringLoop[] loops, AsyncFile[] lanes) {
        if (lanes[0] != null) {
            try {
                lanes[0].close();
            } catch (UringException ignored) {
                // the descriptor goes with the process anyway
            }
        }
        for (UringLoop l : loops) if (l != null) l.close();
    }

    Path path() { return path; }

    /** The raw descriptor, for passthrough registration and fallocate/ftruncate. */
    int fd() { return lanes[0].fd(); }

    long size() { return size.get(); }

    /**
     * Re-reads the size from the image. With passthrough the kernel writes the image itself, and a write
     * past the end grows it without asking the server; attributes must follow the file, not our count.
     */
    long refreshSize() {
        try {
            long actual = Files.size(path);
            size.set(actual);
            return actual;
        } catch (IOException e) {
            return size.get();
        }
    }

    /** Raises the recorded size to at least {@code end} (writes past the end of a resizable volume). */
    void grow(long end) {
        size.accumulateAndGet(end, Math::max);
    }

    /** Sets the size (ftruncate). */
    void truncate(long newSize) {
        ImageCalls.ftruncate(fd(), newSize);
        size.set(newSize);
    }

    /**
     * fallocate(2) on the image (discard, zero range, preallocation). Filesystems without ZERO_RANGE (tmpfs)
     * get a punched hole that is allocated again: the same zeroes and the same reserved space, which is what
     * the loop driver's write-zeroes (mkfs, discard with NOUNMAP) asks for.
     */
    void fallocate(int mode, long offset, long length) {
        try {
            ImageCalls.fallocate(fd(), mode, offset, length);
        } catch (FuseException e) {
            boolean zeroRange = (mode & ImageCalls.FALLOC_FL_ZERO_RANGE) != 0;
            if (!zeroRange || e.errno() != Errno.EOPNOTSUPP || offset + length > size()) throw e;
            ImageCalls.fallocate(fd(), ImageCalls.FALLOC_FL_PUNCH_HOLE | ImageCalls.FALLOC_FL_KEEP_SIZE, offset, length);
            ImageCalls.fallocate(fd(), ImageCalls.FALLOC_FL_KEEP_SIZE, offset, length);
        }
    }

    /** Reads up to {@code dst.byteSize()} bytes at {@code offset}; completes with the count (short only at EOF). */
    CompletableFuture<Integer> read(MemorySegment dst, long offset) {
        if (inline != null) return now(() -> inline.read(ThreadRings.REGISTERED, dst, offset));
        return settle(lane().read(dst, offset));
    }

    /** Writes {@code src} at {@code offset}; completes with the count (the caller resubmits a short write). */
    CompletableFuture<Integer> write(MemorySegment src, long offset) {
        if (inline != null) return now(() -> inline.write(ThreadRings.REGISTERED, src, offset));
        return settle(lane().write(src, offset));
    }

    /** fdatasync (or fsync with {@code full}). */
    CompletableFuture<Void> sync(boolean full) {
        if (inline != null) return now(() -> {
            inline.sync(ThreadRings.REGISTERED, !full);
            return null;
        });
        return settle(lane().fsync(!full));
    }

    private interface InlineOp<T> {
        T run() throws UringException;
    }

    // INLINE mode: the operation already ran on this thread's ring; the future only carries its outcome.
    private static <T> CompletableFuture<T> now(InlineOp<T> op) {
        try {
            return CompletableFuture.completedFuture(op.run());
        } catch (UringException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private AsyncFile lane() {
        return lanes.length == 1 ? lanes[0]
                : lanes[(int) Math.floorMod(Thread.currentThread().threadId(), (long) lanes.length)];
    }

    // SYNC mode: wait here, so that the caller's continuation (whenComplete) runs inline on its own thread.
    private <T> CompletableFuture<T> settle(CompletableFuture<T> f) {
        if (sync) {
            try {
                f.join();
            } catch (RuntimeException failed) {
                // the future carries the failure to the continuation
            }
        }
        return f;
    }

    /** Closes the descriptor and stops the loops. Requests still in flight fail with ECANCELED. */
    @Override
    public void close() {
        if (inline != null) inline.close();
        closeAll(loops, lanes);
    }
}
