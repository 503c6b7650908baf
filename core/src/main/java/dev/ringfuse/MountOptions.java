package dev.ringfuse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How to mount and serve a filesystem. Immutable; each {@code withX} returns a copy.
 *
 * @param fsName          the source shown in /proc/mounts
 * @param subtype         the type suffix: "fuse.&lt;subtype&gt;"
 * @param defaultPermissions let the kernel check permissions from the mode bits (recommended)
 * @param allowOther      let other users than the mounting one use the mount
 * @param readOnly        mount read-only
 * @param transport       the request transport
 * @param method          how the mount is made
 * @param threads         the most /dev/fuse reader threads, 1 to {@link #MAX_THREADS}: the readers grow with
 *                        the load up to it (default {@link #autoThreads()})
 * @param uringDepth      entries per io_uring queue
 * @param spinMicros      the longest a transport thread that has just served a request polls for the next
 *                        one before it sleeps, on both transports; adaptive: only while requests keep coming,
 *                        and shortened when polling costs more than half the serving time (0: never poll;
 *                        default {@link #DEFAULT_SPIN_MICROS})
 * @param maxWrite        largest write request in bytes (also the largest read)
 * @param initTimeout     how long {@link Fuse#mount} waits for the kernel's INIT
 * @param extra           further -o options, passed to the kernel or fusermount3 as they are
 */
public record MountOptions(String fsName, String subtype, boolean defaultPermissions, boolean allowOther,
                           boolean readOnly, TransportKind transport, MountMethod method, int threads,
                           int uringDepth, int spinMicros, int maxWrite, Duration initTimeout, List<String> extra) {

    /**
     * The most /dev/fuse reader threads: each holds a request buffer of max_write (1 MiB by default) and a
     * platform thread; the kernel hands a request to one reader at a time, so more readers than requests in
     * flight only cost memory (256 covers the kernel's default max_background of 12 many times over).
     */
    public static final int MAX_THREADS = 256;

    /**
     * Checks the values and copies {@code extra}.
     *
     * @throws IllegalArgumentException threads outside 1..{@link #MAX_THREADS}, uringDepth below 1, spinMicros
     *         outside 0..10000, or maxWrite outside 4 KiB..1 MiB
     */
    public MountOptions {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new IllegalArgumentException("threads must be 1.." + MAX_THREADS + ", not " + threads);
        }
        if (uringDepth < 1) throw new IllegalArgumentException("uringDepth must be >= 1");
        if (spinMicros < 0 || spinMicros > 10_000) throw new IllegalArgumentException("spin must be 0..10000 µs, not " + spinMicros);
        if (maxWrite < 4096 || maxWrite > (1 << 20)) throw new IllegalArgumentException("maxWrite must be 4 KiB..1 MiB");
        extra = List.copyOf(extra);
    }

    /** The default longest poll for the next request, in microseconds (see {@code transport.AdaptiveSpin}). */
    public static final int DEFAULT_SPIN_MICROS = 50;

    /**
     * The default most /dev/fuse readers: 4 per CPU, at least 8 (libfuse's multi-threaded loop allows 10), at
     * most {@link #MAX_THREADS}. Readers are started only when a request finds none waiting.
     */
    public static int autoThreads() {
        return Math.min(MAX_THREADS, Math.max(8, 4 * Runtime.getRuntime().availableProcessors()));
    }

    /**
     * ringfuse's defaults: default_permissions, auto transport, up to {@link #autoThreads()} readers, depth 8,
     * adaptive polling up to {@link #DEFAULT_SPIN_MICROS} µs, 1 MiB writes.
     */
    public static MountOptions defaults() {
        return new MountOptions("ringfuse", "ringfuse", true, false, false, TransportKind.AUTO, MountMethod.AUTO,
                autoThreads(), 8, DEFAULT_SPIN_MICROS, 1 << 20, Duration.ofSeconds(10), List.of());
    }

    /** A copy with another {@link #fsName()}, the source column of /proc/mounts. */
    public MountOptions withFsName(String v) { return new MountOptions(v, subtype, defaultPermissions, allowOther, readOnly, transport, method, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /** A copy with another {@link #subtype()}: the mount shows as type "fuse.&lt;v&gt;". */
    public MountOptions withSubtype(String v) { return new MountOptions(fsName, v, defaultPermissions, allowOther, readOnly, transport, method, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /**
     * A copy that lets the kernel check permissions from the mode bits (true) or leaves them to the
     * filesystem (false: it must then say so, see {@link dev.ringfuse.lowlevel.LowLevelFileSystem#checksPermissions()}).
     */
    public MountOptions withDefaultPermissions(boolean v) { return new MountOptions(fsName, subtype, v, allowOther, readOnly, transport, method, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /**
     * A copy that lets users other than the mounting one use the mount (needs root, or user_allow_other in
     * /etc/fuse.conf for fusermount3).
     */
    public MountOptions withAllowOther(boolean v) { return new MountOptions(fsName, subtype, defaultPermissions, v, readOnly, transport, method, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /** A copy that mounts read-only: the kernel refuses writes with EROFS before the filesystem sees them. */
    public MountOptions withReadOnly(boolean v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, v, transport, method, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /** A copy with another request transport ({@link TransportKind#AUTO}: io_uring when the kernel offers it). */
    public MountOptions withTransport(TransportKind v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, v, method, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /** A copy with another way of mounting (mount(2) as root, or fusermount3). */
    public MountOptions withMethod(MountMethod v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, v, threads, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /** A copy with {@code v} /dev/fuse reader threads (1 to {@link #MAX_THREADS}; IllegalArgumentException otherwise). */
    public MountOptions withThreads(int v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, method, v, uringDepth, spinMicros, maxWrite, initTimeout, extra); }
    /** A copy with {@code v} entries per io_uring queue, i.e. requests in flight per CPU queue (at least 1). */
    public MountOptions withUringDepth(int v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, method, threads, v, spinMicros, maxWrite, initTimeout, extra); }
    /**
     * A copy whose serving threads (io_uring queues and /dev/fuse readers) poll up to {@code v} microseconds
     * (0 to 10000; 0 turns polling off) for the next request before sleeping, adaptively: only while
     * requests keep arriving, backing off when polling stops paying.
     */
    public MountOptions withSpinMicros(int v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, method, threads, uringDepth, v, maxWrite, initTimeout, extra); }
    /**
     * A copy with the largest write (and read) request, 4 KiB to 1 MiB; each reader or queue entry holds a
     * buffer of this size.
     */
    public MountOptions withMaxWrite(int v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, method, threads, uringDepth, spinMicros, v, initTimeout, extra); }
    /** A copy whose {@link Fuse#mount} gives up when the kernel's INIT has not arrived after {@code v}. */
    public MountOptions withInitTimeout(Duration v) { return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, method, threads, uringDepth, spinMicros, maxWrite, v, extra); }

    /**
     * Applies comma-separated -o options: ro, rw, default_permissions, allow_other, fsname=, subtype=,
     * transport=, threads=, max_write=, uring_depth=, spin= (uring_spin= is the old name); anything else is kept in {@link #extra()}
     * (see {@link Fuse#checkOptions}).
     */
    public MountOptions withOptions(String commaSeparated) {
        MountOptions o = this;
        List<String> rest = new ArrayList<>(extra);
        for (String opt : commaSeparated.split(",")) {
            if (opt.isBlank()) continue;
            int eq = opt.indexOf('=');
            String key = eq < 0 ? opt : opt.substring(0, eq);
            String val = eq < 0 ? "" : opt.substring(eq + 1);
            switch (key) {
                case "ro" -> o = o.withReadOnly(true);
                case "rw" -> o = o.withReadOnly(false);
                case "default_permissions" -> o = o.withDefaultPermissions(true);
                case "no_default_permissions" -> o = o.withDefaultPermissions(false);
                case "allow_other" -> o = o.withAllowOther(true);
                case "fsname" -> o = o.withFsName(val);
                case "subtype" -> o = o.withSubtype(val);
                case "transport" -> o = o.withTransport(TransportKind.valueOf(val.toUpperCase(java.util.Locale.ROOT)));
                case "threads" -> o = o.withThreads(Integer.parseInt(val));
                case "max_write" -> o = o.withMaxWrite(Integer.parseInt(val));
                case "uring_depth" -> o = o.withUringDepth(Integer.parseInt(val));
                case "spin", "uring_spin" -> o = o.withSpinMicros(Integer.parseInt(val));
                default -> rest.add(opt);
            }
        }
        return new MountOptions(o.fsName, o.subtype, o.defaultPermissions, o.allowOther, o.readOnly, o.transport,
                o.method, o.threads, o.uringDepth, o.spinMicros, o.maxWrite, o.initTimeout, rest);
    }

    /**
     * Whether every thread serving the mount is marked PR_SET_IO_FLUSHER ({@code -o io_flusher}): for a
     * filesystem that carries a loop device or swap (volume images). Kept in {@link #extra()}, as the option.
     */
    public boolean ioFlusher() {
        return extra.contains(IO_FLUSHER);
    }

    /** This with {@link #ioFlusher()} on or off. */
    public MountOptions withIoFlusher(boolean v) {
        List<String> e = new ArrayList<>(extra);
        e.remove(IO_FLUSHER);
        if (v) e.add(IO_FLUSHER);
        return new MountOptions(fsName, subtype, defaultPermissions, allowOther, readOnly, transport, method, threads,
                uringDepth, spinMicros, maxWrite, initTimeout, e);
    }

    private static final String IO_FLUSHER = "io_flusher";
}
