package dev.ringfuse.sqlfs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The POSIX suite on sqlfs (SQLite) over io_uring. */
class SqliteUringScenariosTest extends SqliteScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = sqlite(TransportKind.URING);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
