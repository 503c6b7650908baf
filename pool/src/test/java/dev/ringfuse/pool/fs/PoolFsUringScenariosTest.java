package dev.ringfuse.pool.fs;

import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The POSIX suite on a pool dataset over FUSE-over-io_uring. */
class PoolFsUringScenariosTest extends PoolFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = mount(TransportKind.URING);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
