package dev.ringfuse.fs.volume;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * How a {@link VolumeFs} serves its image.
 *
 * @param image       the image file backing {@code /volume}
 * @param size        the size for a new image ({@code create}), or -1; an existing image must match it if given
 * @param create      create the image (sparse, {@code size} bytes) when it does not exist
 * @param resizable   allow truncate/extend of {@code /volume}; otherwise size changes fail with EPERM
 * @param passthrough kernel passthrough of reads and writes ({@link Passthrough})
 * @param io          how reads and writes reach the image when they are not passed through ({@link Io})
 * @param rings       io_uring loops serving the image in {@link Io#ASYNC} and {@link Io#SYNC} mode (at least 1)
 * @param readOnly    a read-only server: opens for writing fail with EROFS, and the image is claimed shared
 *                    (other read-only servers may serve it too, a read-write one may not); otherwise the
 *                    claim is exclusive ({@link dev.ringfuse.fs.volume.VolumeFs#open})
 */
public record VolumeOptions(Path image, long size, boolean create, boolean resizable, Passthrough passthrough,
                            Io io, int rings, boolean readOnly) {

    /** Whether open replies ask the kernel to do reads and writes on the image itself. */
    public enum Passthrough {
        /** Use passthrough when the kernel offers it and we may register a backing file; else serve I/O. */
        AUTO,
        /** Require passthrough: opens fail (EPERM, with the reason logged) when it is unavailable. */
        ON,
        /** Serve every read and write in the server (the io_uring path). */
        OFF;

        /** Parses auto, on or off (any case). */
        public static Passthrough parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    /** The served I/O path. */
    public enum Io {
        /**
         * The callback submits an io_uring READ/WRITE straight into the reply buffer (or from the request
         * buffer) and returns; the loop thread replies on completion. Concurrency is bounded by the rings,
         * not by the transport threads: the choice for images on devices where reads really wait.
         */
        ASYNC,
        /** The callback waits for its io_uring completion and replies itself (one request per thread). */
        SYNC,
        /**
         * The callback submits on its own thread's private ring (image registered as a fixed file) and
         * replies itself: no thread hand-over; cached pages complete during the submit.
         */
        INLINE;

        /** Parses async, sync or inline (any case); IllegalArgumentException for anything else. */
        public static Io parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    /**
     * Checks the values.
     *
     * @throws NullPointerException image, passthrough or io is null
     * @throws IllegalArgumentException create without a positive size, or fewer than one ring
     */
    public VolumeOptions {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(passthrough, "passthrough");
        Objects.requireNonNull(io, "io");
        if (create && size <= 0) throw new IllegalArgumentException("--create needs a positive --size");
        if (rings < 1) throw new IllegalArgumentException("rings must be at least 1");
    }

    /**
     * Serves an existing image: fixed size, passthrough when available, else served on each FUSE thread's
     * own ring ({@link Io#INLINE}, the fastest served path measured: docs/bench/volume.md).
     */
    public static VolumeOptions of(Path image) {
        return new VolumeOptions(image, -1, false, false, Passthrough.AUTO, Io.INLINE, 1, false);
    }

    /** A copy that creates the image with {@code bytes} bytes (sparse) when it does not exist. */
    public VolumeOptions withCreate(long bytes) { return new VolumeOptions(image, bytes, true, resizable, passthrough, io, rings, readOnly); }
    /** A copy with the size a new image gets, which an existing image must match (-1: any size). */
    public VolumeOptions withSize(long bytes) { return new VolumeOptions(image, bytes, create, resizable, passthrough, io, rings, readOnly); }
    /** A copy that allows (or refuses, EPERM) truncating and extending /volume through the mount. */
    public VolumeOptions withResizable(boolean v) { return new VolumeOptions(image, size, create, v, passthrough, io, rings, readOnly); }
    /** A copy with another kernel passthrough choice. */
    public VolumeOptions withPassthrough(Passthrough v) { return new VolumeOptions(image, size, create, resizable, v, io, rings, readOnly); }
    /** A copy with another served I/O path (used when passthrough is off or unavailable). */
    public VolumeOptions withIo(Io v) { return new VolumeOptions(image, size, create, resizable, passthrough, v, rings, readOnly); }
    /** A copy with {@code v} io_uring rings for {@link Io#ASYNC} and {@link Io#SYNC} (at least 1). */
    public VolumeOptions withRings(int v) { return new VolumeOptions(image, size, create, resizable, passthrough, io, v, readOnly); }
    /** A copy that serves read-only (opens for writing fail with EROFS) and claims the image shared. */
    public VolumeOptions withReadOnly(boolean v) { return new VolumeOptions(image, size, create, resizable, passthrough, io, rings, v); }

    /**
     * Parses a size such as {@code 500M}, {@code 1G}, {@code 4096} or {@code 2T} (binary units: K = 1024).
     */
    public static long parseSize(String s) {
        return dev.ringfuse.fs.io.Sizes.parse("size", s);
    }
}
