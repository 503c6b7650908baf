package dev.ringfuse.fs.memfs;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import java.nio.file.Path;

/**
 * A memfs server in its own JVM, so that its resident memory can be measured alone: serves args[0] over
 * transport args[1] (DEV/URING) with default options (no -Xmx tuning), prints READY, waits until unmounted.
 */
public final class MemFsServerMain {
    private MemFsServerMain() {}

    public static void main(String[] args) throws Exception {
        MountOptions o = MountOptions.defaults().withTransport(TransportKind.valueOf(args[1]));
        try (Mount m = Fuse.mount(Path.of(args[0]), new MemFs(), o)) {
            System.out.println("READY " + m.describe());
            System.out.flush();
            m.awaitUnmount();
        }
    }
}
