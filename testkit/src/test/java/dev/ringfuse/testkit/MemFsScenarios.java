package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The suite on memfs; one subclass per transport, each holding its own static {@link FuseMount} (JUnit
 * registers extensions from static fields, so the field cannot live here).
 */
abstract class MemFsScenarios extends PosixScenarios {
    static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");

    /** The mount for {@code transport}: memfs with allow_other (the suite runs steps as other users). */
    static FuseMount memfs(TransportKind transport) {
        return memfs(transport, true);
    }

    /** As {@link #memfs(TransportKind)}; without default_permissions memfs checks every permission itself. */
    static FuseMount memfs(TransportKind transport, boolean defaultPermissions) {
        FuseMount m = FuseMount.of(MemFs::new)
                .options(MountOptions.defaults().withAllowOther(true).withDefaultPermissions(defaultPermissions)
                        .withTransport(transport))
                .timeout(Duration.ofMinutes(3))
                .freshDirectories(false); // PosixScenarios makes its own
        return transport == TransportKind.URING ? m.beforeMount(() -> Files.writeString(ENABLE_URING, "1")) : m;
    }

    /** The extension of the concrete class. */
    abstract FuseMount fuseMount();

    @Override
    protected Path root() {
        return fuseMount().root();
    }
}
