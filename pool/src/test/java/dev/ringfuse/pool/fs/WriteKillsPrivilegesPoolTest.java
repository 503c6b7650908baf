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
 * Issue 16 point 2 on a pool dataset, both transports: an unprivileged writer's buffered, O_DIRECT, mmap,
 * libaio and io_uring writes leave of setuid/setgid exactly what tmpfs leaves ({@link WriteKillsPrivileges};
 * pool/DESIGN.md, "Set-ID bits").
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class WriteKillsPrivilegesPoolTest {
    private static MountOptions options(TransportKind t) {
        return MountOptions.defaults().withAllowOther(true).withTransport(t).withInitTimeout(Duration.ofSeconds(60));
    }

    @RegisterExtension static final FuseMount DEV = PoolFsScenarios.mount(TransportKind.DEV).options(options(TransportKind.DEV)).freshDirectories(true).timeout(Duration.ofMinutes(10));
    @RegisterExtension static final FuseMount URING = PoolFsScenarios.mount(TransportKind.URING).options(options(TransportKind.URING)).freshDirectories(true).timeout(Duration.ofMinutes(10));

    private static void check(FuseMount m) throws Exception {
        WriteKillsPrivileges.assumeTools();
        WriteKillsPrivileges.assertLikeTmpfs(WriteKillsPrivileges.inDirectory(m.testDir()), Map.of());
        WriteKillsPrivileges.assertCapabilitiesLikeTmpfs(m.testDir()); // file capabilities: writers drop them, strangers do not
    }

    @Test void dev() throws Exception { check(DEV); }
    @Test void uring() throws Exception { check(URING); }
}
