package dev.ringfuse.pool.fs;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.WriteKillsPrivileges;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link WriteKillsPrivilegesPoolTest} under the kernel's writeback cache: a buffered write that must drop
 * set-ID bits goes write-through with the kill flag (fuse_cache_write_iter), the others are cached; the result
 * must still be tmpfs's for every way of writing (pool/DESIGN.md, "Writeback cache").
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class WriteKillsPrivilegesWritebackPoolTest {
    @RegisterExtension static final FuseMount DEV = PoolFsScenarios.mount(TransportKind.DEV, true)
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV)
                    .withInitTimeout(Duration.ofSeconds(60)))
            .freshDirectories(true).timeout(Duration.ofMinutes(10));

    @Test
    void likeTmpfs() throws Exception {
        WriteKillsPrivileges.assumeTools();
        WriteKillsPrivileges.assertLikeTmpfs(WriteKillsPrivileges.inDirectory(DEV.testDir()), Map.of());
    }
}
