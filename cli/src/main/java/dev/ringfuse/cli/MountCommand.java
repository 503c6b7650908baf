package dev.ringfuse.cli;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
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
        description = "Mount a filesystem and serve it in the foreground (Ctrl-C or SIGTERM unmounts).")
final class MountCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "Filesystem: ${COMPLETION-CANDIDATES}")
    Filesystems.Kind fs;

    @Parameters(index = "1..*", arity = "1..2", paramLabel = "ARGS",
            description = "For memfs: <mountpoint>. For filesystems with a source: <source> <mountpoint>.")
    List<String> args;

    @Option(names = "-o", description = "Mount options, comma separated (ro, allow_other, default_permissions, fsname=, max_write=, threads=, ...)")
    List<String> options = List.of();

    @Option(names = "--transport", description = "auto, dev or uring (default: ${DEFAULT-VALUE})", defaultValue = "auto")
    TransportKind transport;

    @Option(names = "--threads", description = "/dev/fuse reader threads (default: ${DEFAULT-VALUE})", defaultValue = "4")
    int threads;

    @Mixin
    VolumeCliOptions volume = new VolumeCliOptions();

    @Option(names = "--clear-stale", description = "Clear a stale mount left at the mount point by a server that died")
    boolean clearStale;

    @Override
    public Integer call() throws Exception {
        Path mountpoint = Path.of(args.getLast());
        String source = args.size() > 1 ? args.getFirst() : null;
        MountOptions o = MountOptions.defaults().withTransport(transport).withThreads(threads).withSubtype(fs.subtype())
                .withFsName(source == null ? fs.subtype() : source);
        for (String opt : options) o = o.withOptions(opt);
        if (clearStale && Fuse.clearStale(mountpoint)) System.err.println("cleared a stale mount at " + mountpoint);
        LowLevelFileSystem filesystem = switch (fs) {
            case volume -> volume.create(source);
            case passthrough -> Filesystems.passthrough(source, volume.passthrough);
            default -> fs.create(source);
        };
        try (Mount m = Fuse.mount(mountpoint, filesystem, o)) {
            Thread main = Thread.currentThread();
            Thread hook = new Thread(() -> {
                m.close();
                // the JVM halts when the hooks return: a filesystem with state to persist (pool) finishes here
                closeQuietly(filesystem);
                main.interrupt();
            });
            Runtime.getRuntime().addShutdownHook(hook);
            System.out.println("ringfuse: " + fs.subtype() + " mounted at " + m.mountpoint() + " (transport "
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
        // a filesystem with state to persist (pool) finishes its destroy before the process exits
        closeQuietly(filesystem);
        System.out.println("ringfuse: unmounted " + mountpoint);
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
