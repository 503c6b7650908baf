package dev.ringfuse.sqlfs;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A sqlfs server in its own JVM (for the tests with several mounts): {@code URL MOUNTPOINT CACHE_SECONDS
 * [dev|uring]}; prints READY once mounted, unmounts on SIGTERM.
 */
public final class SqlServerMain {
    private SqlServerMain() {}

    public static void main(String[] args) throws Exception {
        Duration cache = Duration.ofSeconds(Long.parseLong(args[2]));
        SqlFs fs = SqlFs.open(SqlFsOptions.of(args[0]).withEntryTimeout(cache).withAttrTimeout(cache));
        TransportKind t = args.length > 3 && args[3].equals("uring") ? TransportKind.URING : TransportKind.DEV;
        Mount m = Fuse.mount(Path.of(args[1]), fs, MountOptions.defaults().withAllowOther(true).withTransport(t));
        Runtime.getRuntime().addShutdownHook(new Thread(m::close));
        System.out.println("READY");
        System.out.flush();
        m.awaitUnmount();
    }
}
