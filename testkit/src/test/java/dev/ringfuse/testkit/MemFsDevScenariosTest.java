package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on memfs over /dev/fuse. */
@Disabled("WAITING: memfs is a placeholder in main; on branch memfs (6de8dce) all 61 scenarios pass: remove when it lands")
class MemFsDevScenariosTest extends MemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = memfs(TransportKind.DEV);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
