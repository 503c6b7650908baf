package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on the path-API filesystem over FUSE-over-io_uring. */
class PathMemFsUringScenariosTest extends PathMemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = pathMemFs(TransportKind.URING);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
