package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on memfs over FUSE-over-io_uring (the mount setup writes 1 to enable_uring). */
class MemFsUringScenariosTest extends MemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = memfs(TransportKind.URING);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
