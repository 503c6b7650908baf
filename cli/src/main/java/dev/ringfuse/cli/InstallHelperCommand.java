package dev.ringfuse.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringfuse install-helper}: writes {@code /sbin/mount.fuse.ringfuse}, the program mount(8) runs for
 * {@code -t fuse.ringfuse} (it looks only in /sbin, /sbin/fs.d and /sbin/fs). The helper is a two-line
 * script that runs this checkout's {@code ringfuse mount-helper}.
 */
@Command(name = "install-helper", mixinStandardHelpOptions = true,
        description = {"Install /sbin/mount.fuse.ringfuse so that mount -t fuse.ringfuse and fstab lines work.",
                "Then: mount -t fuse.ringfuse memfs /mnt/m -o size=1g   or in /etc/fstab:",
                "  memfs  /mnt/m  fuse.ringfuse  size=1g,mode=1777  0 0"})
final class InstallHelperCommand implements Callable<Integer> {
    static final String NAME = "mount.fuse.ringfuse";
    /** The line that marks a helper as ours: only such a file is replaced or removed. */
    static final String MARK = "# written by `ringfuse install-helper`";

    @Option(names = "--dir", defaultValue = "/sbin", description = "Where mount(8) looks (default: ${DEFAULT-VALUE})")
    Path dir;

    @Option(names = "--uninstall", description = "Remove the helper (only one this command wrote)")
    boolean uninstall;

    /** The command the helper runs, for tests (default: this checkout's ringfuse script). */
    @Option(names = "--exec", hidden = true, arity = "1..*")
    List<String> exec;

    @Override
    public Integer call() throws Exception {
        Path helper = dir.resolve(NAME);
        boolean exists = Files.exists(helper, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (exists && !(Files.isRegularFile(helper) && Files.readString(helper).contains(MARK))) {
            System.err.println("ringfuse: " + helper + " exists and was not written by install-helper; left as it is");
            return 1;
        }
        if (uninstall) {
            if (exists) Files.delete(helper);
            System.out.println(exists ? "removed " + helper : "no " + helper + " to remove");
            return 0;
        }
        List<String> command = exec;
        if (command == null) {
            String home = System.getenv("RINGFUSE_HOME");
            if (home == null || !Files.isExecutable(Path.of(home, "ringfuse"))) {
                System.err.println("ringfuse: run install-helper through the ringfuse script (RINGFUSE_HOME is not set)");
                return 1;
            }
            command = List.of(Path.of(home, "ringfuse").toAbsolutePath().toString());
        }
        String script = "#!/bin/sh\n" + MARK + " (remove: ringfuse install-helper --uninstall)\n"
                + "# mount -t fuse.ringfuse SOURCE MOUNTPOINT -o OPTIONS runs: ringfuse mount-helper SOURCE MOUNTPOINT -o OPTIONS\n"
                + "exec " + command.stream().map(InstallHelperCommand::quote).collect(Collectors.joining(" "))
                + " mount-helper \"$@\"\n";
        Path tmp = Files.createTempFile(dir, ".mount.fuse.ringfuse", ".tmp");
        Files.writeString(tmp, script);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.move(tmp, helper, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        System.out.println("installed " + helper + "; try: mount -t fuse.ringfuse memfs /mnt/m -o size=1g");
        return 0;
    }

    /** Single-quoted for sh. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
