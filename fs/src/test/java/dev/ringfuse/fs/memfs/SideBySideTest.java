package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * issue 17.4: one script ({@code sidebyside.py}: xattr name/value limits, counts and list sizes, namespaces,
 * which timestamps every call changes, O_TMPFILE with linkat) on tmpfs (/dev/shm) and on memfs; the outputs
 * must be identical line for line. Then passthrough over a tmpfs source, which differs in one known place.
 */
class SideBySideTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void memfsMatchesTmpfs(TransportKind transport) throws Exception {
        Probes.assumeTransport(transport);
        String script = Probes.resource(SideBySideTest.class, "sidebyside.py");
        Probes.Probe probe = dir -> Probes.run("python3", script, dir, 90);
        String tmpfs = Probes.onTmpfs("sidebyside", probe);
        MountOptions options = MountOptions.defaults().withTransport(transport);
        String memfs = Probes.onMount(tmp, new MemFs(), options, probe);
        assertTrue(tmpfs.contains("times write file -mc dir ---"), tmpfs);
        assertEquals(tmpfs, memfs);

        Path mnt = Files.createDirectory(tmp.resolve("pt"));
        String passthrough = Probes.onTmpfs("sidebyside-src",
                source -> Probes.onMount(mnt, new PassthroughFs(PassthroughFs.Options.of(source)), options, probe));
        // passthrough refuses xattrs on symlinks (fs/DESIGN.md: its magic-link path would follow the symlink)
        String symlinkXattr = "xattr trusted on symlink";
        assertEquals(symlinkXattr + " EPERM", Probes.line(passthrough, symlinkXattr));
        assertEquals(Probes.without(tmpfs, symlinkXattr), Probes.without(passthrough, symlinkXattr), "passthrough over tmpfs");
    }
}
