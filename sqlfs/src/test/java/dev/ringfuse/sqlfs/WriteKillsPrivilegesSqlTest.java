package dev.ringfuse.sqlfs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.sqlfs.testserver.PgServer;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.WriteKillsPrivileges;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16 point 2 on sqlfs: SQLite over both transports and PostgreSQL over /dev/fuse. An unprivileged
 * writer's buffered, O_DIRECT, mmap, libaio and io_uring writes leave of setuid/setgid exactly what tmpfs
 * leaves ({@link WriteKillsPrivileges}; sqlfs/DESIGN.md, "Set-ID bits").
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class WriteKillsPrivilegesSqlTest {
    static final PgServer PG = PgServer.start();

    /** Registered first, so its afterAll runs last: the server stops only after the mounts are gone. */
    @RegisterExtension @Order(1) static final AfterAllCallback STOP_SERVER = context -> PG.close();
    @RegisterExtension @Order(2) static final FuseMount SQLITE_DEV = SqliteScenarios.sqlite(TransportKind.DEV).freshDirectories(true).timeout(Duration.ofMinutes(10));
    @RegisterExtension @Order(3) static final FuseMount SQLITE_URING = SqliteScenarios.sqlite(TransportKind.URING).freshDirectories(true).timeout(Duration.ofMinutes(10));
    @RegisterExtension @Order(4) static final FuseMount POSTGRES = FuseMount.of(() -> SqlFs.open(SqlFsOptions.of(PG.newDatabase())))
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV).withInitTimeout(Duration.ofSeconds(60))).timeout(Duration.ofMinutes(10));

    private static void check(FuseMount m) throws Exception {
        WriteKillsPrivileges.assumeTools();
        WriteKillsPrivileges.assertLikeTmpfs(WriteKillsPrivileges.inDirectory(m.testDir()), Map.of());
        WriteKillsPrivileges.assertCapabilitiesLikeTmpfs(m.testDir()); // file capabilities: writers drop them, strangers do not
    }

    @Test void sqliteDev() throws Exception { check(SQLITE_DEV); }
    @Test void sqliteUring() throws Exception { check(SQLITE_URING); }
    @Test void postgres() throws Exception { check(POSTGRES); }
}
