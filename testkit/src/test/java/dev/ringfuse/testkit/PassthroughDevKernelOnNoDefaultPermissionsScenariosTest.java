package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on passthrough over /dev/fuse, kernel passthrough on, without default_permissions: every call runs as its caller and the source checks it. */
class PassthroughDevKernelOnNoDefaultPermissionsScenariosTest extends PassthroughScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = passthrough(TransportKind.DEV, KernelMode.ON, false);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }

    @Override
    boolean kernelWanted() {
        return true;
    }
}
