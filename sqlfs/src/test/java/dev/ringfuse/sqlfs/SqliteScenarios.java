package dev.ringfuse.sqlfs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.PosixScenarios;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The testkit's POSIX suite on sqlfs over a fresh SQLite file; one subclass per transport. Every feature is
 * claimed: fallocate, SEEK_DATA/SEEK_HOLE and sparse files from the chunks that exist, POSIX ACLs as memfs.
 */
abstract class SqliteScenarios extends PosixScenarios {
    static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");

    static FuseMount sqlite(TransportKind transport) {
        Path db = TestDbs.newSqliteFile();
        FuseMount m = FuseMount.of(() -> SqlFs.open(SqlFsOptions.of(db.toString())))
                .options(MountOptions.defaults().withAllowOther(true).withTransport(transport))
                .timeout(Duration.ofMinutes(3))
                .freshDirectories(false);
        return transport == TransportKind.URING ? m.beforeMount(() -> Files.writeString(ENABLE_URING, "1")) : m;
    }

    abstract FuseMount fuseMount();

    @Override
    protected Path root() {
        return fuseMount().root();
    }
}
