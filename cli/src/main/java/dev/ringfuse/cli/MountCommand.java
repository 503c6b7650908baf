package dev.ringfuse.cli;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.TransportKind;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ringfuse mount <fs> [args] <mountpoint>}: serves in the foreground until unmounted or signalled. */
@Command(name = "mount", mixinStandardHelpOptions = true,
        description = "Mount a filesystem and serve it in the foreground (Ctrl-C, SIGTERM or umount ends it).",
        footer = {"", "Options (-o, comma separated):",
                "  every filesystem: ro, rw, allow_other, default_permissions (the default), fsname=NAME,",
                "    subtype=NAME (the type is fuse.NAME; subtype= with no name gives plain fuse), nodev/dev,",
                "    nosuid/suid (dev and suid only for root; nodev,nosuid is the default), noexec, noatime,",
                "    sync, max_read=, transport=, threads=, max_write=, uring_depth=, nonempty,",
                "    spin=MICROS (default 50; 0 turns it off): after answering a request, a serving thread polls",
                "    up to this long for the next one instead of sleeping, on both transports, and only while",
                "    requests keep coming (an idle mount polls never); uring_spin= is the old name",
                "  memfs (as tmpfs): size=N[k|m|g|t|%%] (0: unlimited; %% of RAM), nr_inodes=N[k|m|g]",
                "    (default one per 4 KiB of size), mode=OCTAL, uid=N, gid=N (of the root directory),",
                "    entry_timeout=SECONDS, attr_timeout=SECONDS (default 3600 each: every change goes",
                "    through this mount's kernel, which updates its cache itself; 0 asks every time)",
                "  volume: size=, create, resizable, passthrough=auto|on|off, io=inline|async|sync, rings=N",
                "  passthrough: passthrough=auto|on|off",
                "  pool: writeback (the kernel's writeback cache: write(2) fills the page cache, pages reach",
                "    the pool later in whole pages, fsync still commits; small writes faster, creates, unlinks",
                "    and large writes slower; nowriteback names the default),",
                "    entry_timeout=SECONDS, attr_timeout=SECONDS (default 3600 each): how long the kernel keeps",
                "    names and attributes without asking; the mount is the dataset's only writer and invalidates",
                "    what rollback, receive and commits change, so long is safe (0 asks every time),",
                "    readahead=SIZE (the kernel's readahead window of the mount, as root; default 1M, 0: the",
                "    kernel's 128K)",
                "An unknown option is refused with its name. A non-empty mount point is mounted over (as",
                "mount(8) and libfuse 3 do) with a note: its entries are hidden until the unmount."})
final class MountCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "Filesystem: ${COMPLETION-CANDIDATES}")
    Filesystems.Kind fs;

    @Parameters(index = "1..*", arity = "1..2", paramLabel = "ARGS",
            description = "For memfs: <mountpoint>. For filesystems with a source: <source> <mountpoint>.")
    List<String> args;

    @Option(names = "-o", paramLabel = "OPTIONS", description = "Mount options, comma separated (see below)")
    List<String> options = List.of();

    @Option(names = "--transport", description = "auto, dev or uring (default: ${DEFAULT-VALUE})", defaultValue = "auto")
    TransportKind transport;

    @Option(names = "--threads", description = "The most /dev/fuse reader threads, 1 to 256 (more is capped); readers start as the load needs them (default: 4 per CPU, at least 8)", defaultValue = "0")
    int threads;

    @Mixin
    VolumeCliOptions volume = new VolumeCliOptions();

    @Option(names = "--jfr", paramLabel = "FILE",
            description = "Record a JFR file: the dev.ringfuse events (mount, INIT, every request, io_uring batches, unmount) plus the JDK's default profile")
    Path jfr;

    @Option(names = "--metrics", paramLabel = "[ADDR:]PORT",
            description = "Serve the mount's statistics in the Prometheus text format on http://ADDR:PORT/metrics (off by default; ADDR defaults to 127.0.0.1)")
    String metrics;

    @Option(names = {"-v", "--debug"}, description = "Log debug messages and one line per request (opcode, node, result, latency) to stderr")
    boolean verbose;

    @Option(names = "--clear-stale", description = "Clear a stale mount left at the mount point by a server that died")
    boolean clearStale;

    @Override
    public Integer call() throws Exception {
        Logging.configure(verbose);
        Path mountpoint = Path.of(args.getLast());
        String source = args.size() > 1 ? args.getFirst() : null;
        MountSpec spec = new MountSpec(fs, source, mountpoint, options, threads, transport, volume,
                note -> System.err.println("ringfuse: " + note));
        if (clearStale && Fuse.clearStale(mountpoint)) System.err.println("cleared a stale mount at " + mountpoint);
        return serve(spec, jfr, metrics);
    }

    /**
     * Mounts {@code spec} and serves until the mount goes away (umount, a signal); {@code jfr} (a file to
     * record to) and {@code metrics} (a Prometheus endpoint address) may be null.
     */
    static int serve(MountSpec spec, Path jfr, String metrics) throws Exception {
        long hidden = MountSpec.entries(spec.mountpoint);
        LowLevelFileSystem filesystem = spec.create();
        JfrFile recording = jfr == null ? null : JfrFile.start(jfr);
        try (Mount m = Fuse.mount(spec.mountpoint, filesystem, spec.options)) {
            if (hidden > 0) {
                System.err.println("ringfuse: note: " + spec.mountpoint + " was not empty; its " + hidden
                        + " entries are hidden until the unmount");
            }
            if (spec.readAhead > 0) {
                String why = ReadAhead.apply(m.mountpoint(), spec.readAhead);
                if (why != null) System.err.println("ringfuse: note: " + why);
            }
            Thread main = Thread.currentThread();
            Thread hook = new Thread(() -> {
                m.close();
                if (recording != null) recording.close();
                // the JVM halts when the hooks return: a filesystem with state to persist (pool) finishes here
                closeQuietly(filesystem);
                main.interrupt();
            });
            Runtime.getRuntime().addShutdownHook(hook);
            MetricsServer exporter = metrics == null ? null
                    : MetricsServer.start(metrics, dev.ringfuse.stats.StatsSocket.locate(m.mountpoint()));
            if (exporter != null) System.out.println("ringfuse: metrics on " + exporter.url());
            System.out.println("ringfuse: " + spec.fs.subtype() + " mounted at " + m.mountpoint() + " (transport "
                    + m.transport().name().toLowerCase(java.util.Locale.ROOT) + "); Ctrl-C to unmount");
            System.out.flush();
            try {
                m.awaitUnmount();
            } catch (InterruptedException e) {
                // the signal handler unmounted
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is what ended the wait
            }
        }
        if (recording != null) {
            recording.close();
            System.out.println("ringfuse: recording written to " + jfr);
        }
        // a filesystem with state to persist (pool) finishes its destroy before the process exits
        closeQuietly(filesystem);
        System.out.println("ringfuse: unmounted " + spec.mountpoint);
        return 0;
    }

    private static void closeQuietly(LowLevelFileSystem fs) {
        if (!(fs instanceof AutoCloseable c)) return;
        try {
            c.close();
        } catch (Exception e) {
            System.err.println("ringfuse: closing the filesystem failed: " + e.getMessage());
        }
    }
}
