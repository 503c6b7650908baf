package dev.ringfuse.sqlfs;

import dev.ringfuse.sqlfs.testserver.PgServer;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.PosixScenarios;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The POSIX suite on sqlfs over a real PostgreSQL server (started for this class), over /dev/fuse; every feature claimed. */
class PgScenariosTest extends PosixScenarios {
    static final PgServer PG = PgServer.start();

    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(() -> SqlFs.open(SqlFsOptions.of(PG.newDatabase())))
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV))
            .timeout(Duration.ofMinutes(4))
            .freshDirectories(false);

    @AfterAll
    static void stopServer() {
        PG.close();
    }

    @Override
    protected Path root() {
        return MOUNT.root();
    }
}
