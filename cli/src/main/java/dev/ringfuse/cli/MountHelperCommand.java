package dev.ringfuse.cli;

import dev.ringfuse.TransportKind;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ringfuse mount-helper SOURCE MOUNTPOINT [-o OPTIONS]}: what {@code /sbin/mount.fuse.ringfuse} runs
 * for {@code mount -t fuse.ringfuse} and fstab lines. It starts the server detached (its own session,
 * stdin from /dev/null, output to a log) and returns once the mount is live; {@code umount} ends the
 * server. mount(8) runs it with almost no environment and, for a user mount, with the user's rights: it
 * then mounts through fusermount3 and gets no more than fusermount3 gives.
 */
@Command(name = "mount-helper", mixinStandardHelpOptions = true,
        description = {"The mount(8) helper: mount -t fuse.ringfuse SOURCE MOUNTPOINT -o OPTIONS.",
                "Starts the server detached and returns once the mount is live; umount stops the server."},
        footer = {"", "SOURCE: memfs | passthrough:/source/dir | volume:/path/to/image (ringfuse#... also taken)",
                "OPTIONS: those of `ringfuse mount` (see its help), and",
                "  subtype=NAME   the type the kernel shows: fuse.NAME (default fuse.ringfuse); subtype= gives fuse",
                "  log=FILE|none  the server's output (default /run/ringfuse/<mountpoint>.log as root,",
                "                 /tmp/ringfuse-<uid>/<mountpoint>.log otherwise)",
                "fstab:  memfs  /mnt/m  fuse.ringfuse  size=1g,mode=1777  0 0",
                "        volume:/var/tmp/disk.img  /mnt/v  fuse.ringfuse  create,size=1g  0 0"})
final class MountHelperCommand implements Callable<Integer> {
    /** mount(8)'s exit status for a failed mount. */
    static final int MOUNT_FAILURE = 32;

    @Parameters(index = "0", paramLabel = "SOURCE")
    String source;

    @Parameters(index = "1", paramLabel = "MOUNTPOINT")
    Path mountpoint;

    @Option(names = "-o", paramLabel = "OPTIONS")
    List<String> options = new ArrayList<>();

    @Option(names = "-n", description = "Do not write /etc/mtab (there is none to write; accepted)")
    boolean noMtab;

    @Option(names = "-s", description = "Sloppy: accepted; unknown options are still refused")
    boolean sloppy;

    @Option(names = "-f", description = "Fake: check the options, do not mount")
    boolean fake;

    @Option(names = "-v", description = "Verbose: say what is started")
    boolean verbose;

    @Option(names = "-N", paramLabel = "NS", description = "Mount namespace (not supported: refused)")
    String namespace;

    @Option(names = "--ready-timeout", hidden = true, defaultValue = "120")
    int readyTimeoutSeconds;

    @Override
    public Integer call() throws Exception {
        if (namespace != null) {
            System.err.println("mount.fuse.ringfuse: -N (mount namespaces) is not supported");
            return 1;
        }
        String spec = source.startsWith("ringfuse#") ? source.substring("ringfuse#".length()) : source;
        int colon = spec.indexOf(':');
        String kindName = colon < 0 ? spec : spec.substring(0, colon);
        String fsSource = colon < 0 ? null : spec.substring(colon + 1);
        Filesystems.Kind kind;
        try {
            kind = Filesystems.Kind.valueOf(kindName);
        } catch (IllegalArgumentException e) {
            System.err.println("mount.fuse.ringfuse: unknown source \"" + source + "\": use memfs, passthrough:/dir or volume:/image");
            return 1;
        }
        if (kind != Filesystems.Kind.memfs && (fsSource == null || fsSource.isEmpty())) {
            System.err.println("mount.fuse.ringfuse: " + kind + " needs a path: " + kind + ":/path");
            return 1;
        }
        // helper-only options out; fsname and subtype defaults so that mount(8) and findmnt see the fstab line
        List<String> opts = new ArrayList<>();
        String log = null;
        boolean subtypeGiven = false, fsnameGiven = false;
        for (String arg : options) {
            for (String o : arg.split(",")) {
                if (o.isBlank()) continue;
                if (o.startsWith("log=")) log = o.substring(4);
                else {
                    subtypeGiven |= o.startsWith("subtype=");
                    fsnameGiven |= o.startsWith("fsname=");
                    opts.add(o);
                }
            }
        }
        if (!subtypeGiven) opts.add("subtype=ringfuse");
        if (!fsnameGiven) opts.add("fsname=" + source);
        String joined = String.join(",", opts);
        Path mnt = mountpoint.toAbsolutePath().normalize();
        // the options are checked here, so that mount(8) prints the problem and nothing starts
        new MountSpec(kind, fsSource, mnt, List.of(joined), 0, TransportKind.AUTO, new VolumeCliOptions(), n -> { });
        if (fake) return 0;

        List<String> cmd = new ArrayList<>();
        Optional<Path> setsid = findSetsid();
        setsid.ifPresent(p -> cmd.add(p.toString()));
        cmd.addAll(javaPrefix());
        cmd.add("mount");
        cmd.add(kind.name());
        if (fsSource != null && kind != Filesystems.Kind.memfs) cmd.add(fsSource);
        cmd.add(mnt.toString());
        cmd.add("-o");
        cmd.add(joined);
        File logFile = logFile(log, mnt);
        // no log wanted (or no safe place for one): a private temporary file, unlinked once the mount is live,
        // still tells when the server is ready and why it failed
        boolean scratch = logFile == null;
        if (scratch) logFile = File.createTempFile("ringfuse-helper-", ".log");
        long from = logFile.length();
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile)).redirectErrorStream(true);
        if (verbose) System.err.println("mount.fuse.ringfuse: starting " + String.join(" ", cmd) + (scratch ? "" : " >> " + logFile));
        try {
            return await(pb.start(), mnt, logFile, from, scratch);
        } finally {
            if (scratch) Files.deleteIfExists(logFile.toPath());
        }
    }

    private int await(Process server, Path mnt, File logFile, long from, boolean scratch) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(readyTimeoutSeconds);
        while (true) {
            if (tail(logFile, from).contains("mounted at") && mounted(mnt)) return 0;
            if (!server.isAlive()) {
                String out = tail(logFile, from).strip();
                System.err.println("mount.fuse.ringfuse: the server ended (exit " + server.exitValue() + ") before the mount was live"
                        + (out.isEmpty() ? "" : ":\n" + out));
                return MOUNT_FAILURE;
            }
            if (System.nanoTime() > deadline) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) server.destroyForcibly();
                System.err.println("mount.fuse.ringfuse: the mount was not live after " + readyTimeoutSeconds + " s; stopped the server"
                        + (scratch ? "" : " (log: " + logFile + ")"));
                return MOUNT_FAILURE;
            }
            Thread.sleep(20);
        }
    }

    /** Whether a FUSE mount is at {@code mnt} (it may take the place of what was there). */
    static boolean mounted(Path mnt) throws IOException {
        String want = " " + mnt.toString().replace(" ", "\\040") + " fuse";
        for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
            if (line.contains(want)) return true;
        }
        return false;
    }

    /** The java command that runs this class's Main again: the same binary, JVM options and class path. */
    static List<String> javaPrefix() {
        ProcessHandle.Info info = ProcessHandle.current().info();
        String java = info.command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> out = new ArrayList<>();
        out.add(java);
        String[] args = info.arguments().orElse(new String[0]);
        int main = List.of(args).indexOf(Main.class.getName());
        if (main > 0) {
            out.addAll(List.of(args).subList(0, main));
        } else {
            out.add("--enable-native-access=ALL-UNNAMED");
            out.add("-cp");
            out.add(System.getProperty("java.class.path"));
        }
        out.add(Main.class.getName());
        return out;
    }

    private static Optional<Path> findSetsid() {
        for (String d : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            Path p = Path.of(d, "setsid");
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** The server's log: log=FILE, log=none (null), or one per mount point in a directory only this user owns. */
    private static File logFile(String log, Path mnt) throws IOException {
        if ("none".equals(log)) return null;
        if (log != null) return new File(log);
        boolean root = dev.ringfuse.sys.Libc.geteuid() == 0;
        Path dir = root ? Path.of("/run/ringfuse") : Path.of("/tmp", "ringfuse-" + dev.ringfuse.sys.Libc.geteuid());
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        // a directory someone else made in /tmp could be theirs to read or swap: then no log
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (owner != dev.ringfuse.sys.Libc.geteuid() || Files.isSymbolicLink(dir)) return null;
        String name = mnt.toString().equals("/") ? "root" : mnt.toString().substring(1).replace('/', '-');
        return dir.resolve(name + ".log").toFile();
    }

    /** The log from byte {@code from} on. */
    private static String tail(File f, long from) throws IOException {
        try (RandomAccessFile r = new RandomAccessFile(f, "r")) {
            if (r.length() <= from) return "";
            r.seek(from);
            byte[] b = new byte[(int) Math.min(64 << 10, r.length() - from)];
            r.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        } catch (java.io.FileNotFoundException e) {
            return "";
        }
    }
}
