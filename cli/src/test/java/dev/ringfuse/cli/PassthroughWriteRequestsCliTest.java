package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one write costs the passthrough filesystem with kernel passthrough off: one WRITE. Without
 * HANDLE_KILLPRIV_V2 the kernel asked for {@code security.capability} (GETXATTR) before every write, to learn
 * whether the write must drop a file capability: 4,096 GETXATTRs for fio's 4,096 random writes; here dd's O_DIRECT writes, twice the round
 * trips (docs/bench/transports.md, "passthrough-off: writes"). The server now takes V2 and drops set-ID bits
 * itself; WriteKillsPrivilegesTest shows it gives tmpfs's result for an unprivileged writer.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PassthroughWriteRequestsCliTest {
    @TempDir
    Path dir;

    @AfterEach
    void unmountLeftovers() throws Exception {
        Cli.unmountAllUnder(dir);
    }

    @Test
    void aDirectWriteIsOneRequest() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src")), mnt = Files.createDirectories(dir.resolve("mnt"));
        for (String transport : new String[] {"dev", "uring"}) {
            if (transport.equals("uring")) Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
            try (Procs.Child c = Cli.serve(Cli.cmd("mount", "passthrough", src.toString(), mnt.toString(),
                    "--passthrough", "off", "--transport", transport))) {
                int blocks = 256;
                long writes0 = Cli.requests(mnt, "WRITE"), xattrs0 = Cli.requests(mnt, "GETXATTR");
                Path f = mnt.resolve("f-" + transport);
                Procs.Result dd = Procs.run("dd", "if=/dev/zero", "of=" + f, "bs=4k", "count=" + blocks, "oflag=direct", "status=none");
                assertEquals(0, dd.exit(), dd.err());
                assertEquals(4096L * blocks, Files.size(f));
                long writes = Cli.requests(mnt, "WRITE") - writes0, xattrs = Cli.requests(mnt, "GETXATTR") - xattrs0;
                assertTrue(writes >= blocks, transport + ": " + writes + " WRITEs for " + blocks + " writes");
                // the kernel still asks once per inode (before S_NOSEC is set on it); one per write was the old cost
                assertTrue(xattrs <= 4, transport + ": " + xattrs + " GETXATTRs for " + blocks + " writes");
                Cli.unmount(mnt, c);
            }
        }
    }
}
