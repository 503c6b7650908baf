package dev.ringfuse.cli;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.io.ExclusiveUse;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.fs.memfs.TmpfsOptions;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.pool.fs.CacheTimeouts;
import dev.ringfuse.sys.Libc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One mount as the user asked for it: the filesystem, its source, the mount point and every -o option,
 * sorted into the filesystem's own options and the mount's. Shared by {@code ringfuse mount} and the mount
 * helper, so that both take the same options with the same messages. Every option is known or refused here,
 * before anything is created (a volume image, a mount).
 */
final class MountSpec {
    /** -o options of the volume filesystem (the same as its --flags, for fstab lines). */
    static final List<String> VOLUME_KEYS = List.of("size", "create", "resizable", "passthrough", "io", "rings");

    final Filesystems.Kind fs;
    final String source;
    final Path mountpoint;
    final MountOptions options;
    private final MemFs.Options.Builder memfs = MemFs.Options.builder();
    private final VolumeCliOptions volume;
    /**
     * pool: -o writeback, the kernel's writeback cache (pool/DESIGN.md, "Writeback cache"): faster small writes,
     * slower creates, unlinks and large writes (measured in session 10), so not the default; -o nowriteback
     * names the default.
     */
    private boolean poolWriteback;
    /** pool: -o entry_timeout=,attr_timeout= in seconds (pool/DESIGN.md, "The kernel's name and attribute cache"). */
    private CacheTimeouts poolTimeouts = CacheTimeouts.DEFAULT;
    /**
     * pool: -o readahead=SIZE, the kernel's readahead window for this mount (1 MiB unless given; 0 keeps the
     * kernel's 128 KiB). See {@link ReadAhead}.
     */
    long readAhead = -1;
    static final long POOL_READAHEAD = 1 << 20;
    /** Held until the process ends (see {@link #create}). */
    @SuppressWarnings("unused")
    private ExclusiveUse sourceClaim;

    /**
     * @param notes receives one line per option that was adjusted or ignored (threads capped, dev/suid for a
     *              user), for the caller to print
     * @throws IllegalArgumentException naming the first bad or unknown option
     */
    MountSpec(Filesystems.Kind fs, String source, Path mountpoint, List<String> optionArgs, int threads,
              TransportKind transport, VolumeCliOptions volume, Consumer<String> notes) {
        this.fs = fs;
        this.source = source;
        this.mountpoint = mountpoint;
        this.volume = volume;
        if (threads > MountOptions.MAX_THREADS) {
            notes.accept("--threads " + threads + " capped at " + MountOptions.MAX_THREADS + " (more readers than "
                    + "requests in flight only cost memory: each holds a max_write buffer)");
            threads = MountOptions.MAX_THREADS;
        }
        List<String> opts = split(optionArgs);
        opts = switch (fs) {
            case memfs -> {
                if (volume.size != null) opts.addFirst("size=" + volume.size);
                yield takeMemfsTimeouts(TmpfsOptions.apply(memfs, opts));
            }
            case volume -> takeVolume(opts);
            case passthrough -> takePassthrough(opts);
            case pool -> takePool(opts);
            case sql -> opts;
        };
        if (Libc.getuid() != 0) {
            for (String p : List.of("dev", "suid")) {
                if (opts.remove(p)) notes.accept("option " + p + " ignored: only root may mount with dev or suid "
                        + "(fusermount3 ignores it too); the mount is nodev,nosuid");
            }
        }
        MountOptions o = MountOptions.defaults().withTransport(transport).withSubtype(fs.subtype())
                .withFsName(source == null ? fs.subtype()
                        : fs == Filesystems.Kind.sql ? Filesystems.sqlName(source) : source);
        if (threads > 0) o = o.withThreads(threads);   // 0: the default, MountOptions.autoThreads()
        // a volume is a block device's backend: its serving threads must be I/O flushers (MountOptions.ioFlusher)
        if (fs == Filesystems.Kind.volume) o = o.withIoFlusher(true);
        this.options = dev.ringfuse.Fuse.checkOptions(o.withOptions(String.join(",", opts)));
    }

    /**
     * The filesystem, created now (a volume opens or creates its image). A volume claims its image and a
     * passthrough server its source directory for the life of the process: exclusively when read-write,
     * shared when read-only (-o ro), so a second server is refused with a line naming the holder.
     */
    LowLevelFileSystem create() throws IOException {
        if (fs == Filesystems.Kind.passthrough && source != null && Files.isDirectory(Path.of(source))) {
            sourceClaim = ExclusiveUse.claim(Path.of(source), options.readOnly(), "passthrough source");
        }
        return switch (fs) {
            case memfs -> {
                if (source != null && !source.equals("memfs")) {
                    throw new IllegalArgumentException("memfs takes no source, only a mount point");
                }
                yield new MemFs(memfs.build());
            }
            case volume -> volume.create(source, options.readOnly());
            case passthrough -> Filesystems.passthrough(source, volume.passthrough);
            case sql -> {
                if (source == null) throw new IllegalArgumentException("sql takes <database file or JDBC URL> <mountpoint>");
                yield dev.ringfuse.sqlfs.SqlFs.open(dev.ringfuse.sqlfs.SqlFsOptions.of(source));
            }
            case pool -> Filesystems.poolDataset(source, poolWriteback, poolTimeouts);
        };
    }

    /** How many entries the mount point holds (they are hidden while mounted), or 0. */
    static long entries(Path mountpoint) {
        try (Stream<Path> s = Files.list(mountpoint)) {
            return s.count();
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private List<String> takeVolume(List<String> opts) {
        List<String> rest = new ArrayList<>();
        for (String opt : opts) {
            int eq = opt.indexOf('=');
            String key = eq < 0 ? opt : opt.substring(0, eq), val = eq < 0 ? null : opt.substring(eq + 1);
            if (!VOLUME_KEYS.contains(key)) {
                rest.add(opt);
                continue;
            }
            switch (key) {
                case "create" -> volume.create = true;
                case "resizable" -> volume.resizable = true;
                case "size" -> volume.size = need(key, val);
                case "passthrough" -> volume.passthrough = need(key, val);
                case "io" -> volume.io = need(key, val);
                case "rings" -> volume.rings = Integer.parseInt(need(key, val));
                default -> throw new IllegalStateException(key);
            }
        }
        return rest;
    }

    /** memfs: takes entry_timeout= and attr_timeout= (seconds, as for a pool); returns the other options. */
    private List<String> takeMemfsTimeouts(List<String> opts) {
        long hour = MemFs.Options.DEFAULT_CACHE.toNanos();
        CacheTimeouts t = takeTimeouts(opts, new CacheTimeouts(hour, hour));
        memfs.entryTimeout(java.time.Duration.ofNanos(t.entryNanos())).attrTimeout(java.time.Duration.ofNanos(t.attrNanos()));
        return opts;
    }

    /**
     * Removes entry_timeout= and attr_timeout= (decimal seconds) from {@code opts} and returns them, each
     * {@code start}'s where not given.
     */
    private static CacheTimeouts takeTimeouts(List<String> opts, CacheTimeouts start) {
        long entry = start.entryNanos(), attr = start.attrNanos();
        for (java.util.Iterator<String> it = opts.iterator(); it.hasNext(); ) {
            String opt = it.next();
            if (opt.startsWith("entry_timeout=")) entry = CacheTimeouts.parseSeconds("entry_timeout", opt.substring(14));
            else if (opt.startsWith("attr_timeout=")) attr = CacheTimeouts.parseSeconds("attr_timeout", opt.substring(13));
            else continue;
            it.remove();
        }
        return new CacheTimeouts(entry, attr);
    }

    /** pool: takes [no]writeback, entry_timeout=, attr_timeout= and readahead=; returns the other options. */
    private List<String> takePool(List<String> opts) {
        boolean on = opts.remove("writeback"), off = opts.remove("nowriteback");
        if (on && off) throw new IllegalArgumentException("writeback and nowriteback contradict each other: give one");
        poolWriteback = on;
        readAhead = POOL_READAHEAD;
        poolTimeouts = takeTimeouts(opts, poolTimeouts);
        List<String> rest = new ArrayList<>();
        for (String opt : opts) {
            if (opt.startsWith("readahead=")) readAhead = readAheadSize(opt.substring(10));
            else rest.add(opt);
        }
        return rest;
    }

    /**
     * -o readahead=SIZE in bytes: 0 (the kernel's 128 KiB stays) or 4K to 64M. The window is set in KiB and the
     * kernel keeps whole pages of it: 1 to 4095 bytes would turn readahead off, not make it small.
     */
    private static long readAheadSize(String v) {
        long size;
        try {
            size = dev.ringfuse.pool.txg.Properties.parseSize(v);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("readahead=" + v + ": not a size (e.g. 1M, 512K, 0)");
        }
        if (size < 0 || (size > 0 && size < 4096) || size > 64L << 20) {
            throw new IllegalArgumentException("readahead must be 0 or from 4K to 64M");
        }
        return size;
    }

    private List<String> takePassthrough(List<String> opts) {
        List<String> rest = new ArrayList<>();
        for (String opt : opts) {
            if (opt.startsWith("passthrough=")) volume.passthrough = opt.substring("passthrough=".length());
            else rest.add(opt);
        }
        return rest;
    }

    private static String need(String key, String val) {
        if (val == null || val.isEmpty()) throw new IllegalArgumentException("mount option " + key + " needs a value: " + key + "=...");
        return val;
    }

    private static List<String> split(List<String> optionArgs) {
        List<String> out = new ArrayList<>();
        for (String arg : optionArgs) {
            Arrays.stream(arg.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
        }
        return out;
    }
}
