package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on memfs over /dev/fuse. */
class MemFsDevScenariosTest extends MemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = memfs(TransportKind.DEV);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
