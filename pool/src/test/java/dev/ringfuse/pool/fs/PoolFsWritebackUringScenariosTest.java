package dev.ringfuse.pool.fs;

import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The POSIX suite on a pool dataset with the kernel's writeback cache over io_uring. */
class PoolFsWritebackUringScenariosTest extends PoolFsWritebackScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = mount(TransportKind.URING, true);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
