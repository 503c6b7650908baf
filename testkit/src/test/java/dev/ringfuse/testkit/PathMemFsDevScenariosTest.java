package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on the path-API filesystem over /dev/fuse. */
class PathMemFsDevScenariosTest extends PathMemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = pathMemFs(TransportKind.DEV);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
