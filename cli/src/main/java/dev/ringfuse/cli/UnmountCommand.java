package dev.ringfuse.cli;

import dev.ringfuse.Fuse;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ringfuse unmount <mountpoint>}: lazily unmounts a FUSE mount, live or stale. */
@Command(name = "unmount", mixinStandardHelpOptions = true,
        description = "Unmount a FUSE mount (also one left stale by a server that died).")
final class UnmountCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "The mount point")
    Path mountpoint;

    @Override
    public Integer call() throws Exception {
        if (Fuse.clearStale(mountpoint)) {
            System.out.println("unmounted " + mountpoint);
            return 0;
        }
        System.err.println("no FUSE mount at " + mountpoint);
        return 1;
    }
}
