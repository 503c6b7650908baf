package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A symlink in a passthrough mount shows no extended attributes, as a symlink without any does on the source
 * (ENODATA): `ls -l` asks each entry for its security label, and the EPERM the passthrough used to answer (libfuse's
 * choice) made it print "Operation not permitted" for every symlink listed.
 */
@Timeout(60)
class PassthroughSymlinkXattrTest {

    @Test
    void lsListsSymlinksWithoutAnError() throws Exception {
        Path source = MountedFsKit.newMountpoint("passthrough-symlink-src");
        Files.writeString(source.resolve("f"), "target");
        Files.createSymbolicLink(source.resolve("l"), Path.of("f"));
        Files.createSymbolicLink(source.resolve("dangling"), Path.of("nowhere"));
        Path mnt = MountedFsKit.newMountpoint("passthrough-symlink");
        Mount m = Fuse.mount(mnt, new PassthroughFs(PassthroughFs.Options.of(source).withKernel(PassthroughFs.KernelMode.OFF)),
                MountOptions.defaults().withTransport(TransportKind.DEV));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(30), mnt, () -> {
                Process p = new ProcessBuilder("ls", "-l", mnt.toString()).start();
                String out = new String(p.getInputStream().readAllBytes()), err = new String(p.getErrorStream().readAllBytes());
                assertTrue(p.waitFor(20, TimeUnit.SECONDS), "ls finished");
                assertEquals("", err, "ls's errors");
                assertEquals(0, p.exitValue());
                assertTrue(out.contains("l -> f") && out.contains("dangling -> nowhere"), out);
                assertEquals("f", Files.readSymbolicLink(mnt.resolve("l")).toString());
                return null;
            });
        } finally {
            assertTrue(MountedFsKit.closeOrForce(m, mnt, Duration.ofSeconds(30)), "unmounted");
        }
    }
}
