package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on memfs over /dev/fuse without default_permissions: memfs checks every permission itself. */
class MemFsDevNoDefaultPermissionsScenariosTest extends MemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = memfs(TransportKind.DEV, false);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
