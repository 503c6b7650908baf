package dev.ringfuse.pool.fs;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import java.nio.file.Path;
import java.util.List;

/**
 * A pool dataset served by a separate JVM (for kill -9 tests): {@code PoolServerMain IMAGE DATASET MOUNTPOINT
 * [writeback]}.
 */
public final class PoolServerMain {
    private PoolServerMain() {}

    public static void main(String[] args) throws Exception {
        Pool pool = Pool.open(List.<BlockDevice>of(UringBlockDevice.open(Path.of(args[0]))));
        boolean writeback = args.length > 3 && args[3].equals("writeback");
        PoolFs fs = new PoolFs(pool.dataset(args[1]), true, 5, writeback);
        try (Mount m = Fuse.mount(Path.of(args[2]), fs, MountOptions.defaults())) {
            System.out.println("READY");
            System.out.flush();
            m.awaitUnmount();
        }
    }
}
