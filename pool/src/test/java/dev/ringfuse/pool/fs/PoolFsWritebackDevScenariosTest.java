package dev.ringfuse.pool.fs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The POSIX suite on a pool dataset with the kernel's writeback cache over /dev/fuse. */
class PoolFsWritebackDevScenariosTest extends PoolFsWritebackScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = mount(TransportKind.DEV, true);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
