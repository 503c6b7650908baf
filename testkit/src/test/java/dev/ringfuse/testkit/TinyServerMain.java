package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import java.nio.file.Path;

/** A server in its own JVM, for the kill -9 test: mounts {@link TinyFs} at args[0], prints READY, waits. */
public final class TinyServerMain {
    private TinyServerMain() {}

    public static void main(String[] args) throws Exception {
        Mount m = Fuse.mount(Path.of(args[0]), new TinyFs(), MountOptions.defaults().withAllowOther(true));
        System.out.println("READY " + m.describe());
        System.out.flush();
        m.awaitUnmount();
    }
}
