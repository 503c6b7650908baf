package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on passthrough over FUSE-over-io_uring, kernel passthrough on. */
class PassthroughUringKernelOnScenariosTest extends PassthroughScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = passthrough(TransportKind.URING, KernelMode.ON);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }

    @Override
    boolean kernelWanted() {
        return true;
    }
}
