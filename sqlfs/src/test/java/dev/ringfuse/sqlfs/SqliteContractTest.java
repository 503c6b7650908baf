package dev.ringfuse.sqlfs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The schema contract on SQLite, over both transports; the application opens the same file with sqlite-jdbc. */
class SqliteContractTest {
    static FuseMount mount(Path db, TransportKind transport) {
        FuseMount m = FuseMount.of(() -> SqlFs.open(SqlFsOptions.of(db.toString())
                        .withEntryTimeout(Duration.ofSeconds(60)).withAttrTimeout(Duration.ofSeconds(60))))
                .options(MountOptions.defaults().withAllowOther(true).withTransport(transport))
                .timeout(Duration.ofMinutes(1))
                .freshDirectories(false);
        return transport == TransportKind.URING
                ? m.beforeMount(() -> Files.writeString(SqliteScenarios.ENABLE_URING, "1")) : m;
    }

    static Connection open(Path db) throws Exception {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA foreign_keys = ON");
            s.execute("PRAGMA busy_timeout = 10000");
        }
        c.setAutoCommit(false);
        return c;
    }

    @Nested
    class Dev extends ContractTests {
        static final Path DB = TestDbs.newSqliteFile();
        @RegisterExtension
        static final FuseMount MOUNT = mount(DB, TransportKind.DEV);

        @Override Path root() { return MOUNT.root(); }
        @Override Connection connect() throws Exception { return open(DB); }
    }

    @Nested
    class Uring extends ContractTests {
        static final Path DB = TestDbs.newSqliteFile();
        @RegisterExtension
        static final FuseMount MOUNT = mount(DB, TransportKind.URING);

        @Override Path root() { return MOUNT.root(); }
        @Override Connection connect() throws Exception { return open(DB); }
    }
}
