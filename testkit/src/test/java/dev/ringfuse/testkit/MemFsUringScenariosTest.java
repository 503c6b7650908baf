package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The suite on memfs over FUSE-over-io_uring (the mount setup writes 1 to enable_uring). */
@Disabled("WAITING: memfs is a placeholder and core answers transport=URING with EOPNOTSUPP; enable when both land")
class MemFsUringScenariosTest extends MemFsScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = memfs(TransportKind.URING);

    @Override
    FuseMount fuseMount() {
        return MOUNT;
    }
}
