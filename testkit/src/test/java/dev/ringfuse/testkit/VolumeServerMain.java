package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.fs.volume.VolumeFs;
import dev.ringfuse.fs.volume.VolumeOptions;

import java.nio.file.Path;

/**
 * A volume server in its own JVM, for the kill -9 test: serves the image args[0] at args[1] with passthrough
 * args[2] (auto/on/off), prints READY, waits until unmounted or killed.
 */
public final class VolumeServerMain {
    private VolumeServerMain() {}

    public static void main(String[] args) throws Exception {
        VolumeOptions o = VolumeOptions.of(Path.of(args[0])).withPassthrough(VolumeOptions.Passthrough.parse(args[2]));
        Mount m = Fuse.mount(Path.of(args[1]), VolumeFs.open(o), MountOptions.defaults());
        System.out.println("READY " + m.describe());
        System.out.flush();
        m.awaitUnmount();
    }
}
