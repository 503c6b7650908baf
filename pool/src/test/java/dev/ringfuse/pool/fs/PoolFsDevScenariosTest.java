package dev.ringfuse.pool.fs;

import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The POSIX suite on a pool dataset over /dev/fuse. */
class PoolFsDevScenariosTest extends PoolFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = mount(TransportKind.DEV);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
