package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on memfs over io_uring without default_permissions: memfs checks every permission itself. */
class MemFsUringNoDefaultPermissionsScenariosTest extends MemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = memfs(TransportKind.URING, false);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
