package dev.ringfuse.sqlfs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.sqlfs.testserver.PgServer;
import dev.ringfuse.testkit.FuseMount;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The schema contract on PostgreSQL (/dev/fuse): the same recipes as {@link SqliteContractTest}, through the
 * PostgreSQL driver; changes made through SQL reach the mount by NOTIFY.
 */
class PgContractTest extends ContractTests {
    static final PgServer PG = PgServer.start();
    static final String URL = PG.newDatabase();

    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(() -> SqlFs.open(SqlFsOptions.of(URL)
                    .withEntryTimeout(Duration.ofSeconds(60)).withAttrTimeout(Duration.ofSeconds(60))))
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV))
            .timeout(Duration.ofMinutes(2))
            .freshDirectories(false);

    @AfterAll
    static void stopServer() {
        PG.close();
    }

    @Override
    Path root() {
        return MOUNT.root();
    }

    @Override
    Connection connect() throws Exception {
        Connection c = DriverManager.getConnection(URL);
        c.setAutoCommit(false);
        return c;
    }
}
