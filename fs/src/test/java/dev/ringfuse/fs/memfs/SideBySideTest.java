package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    private static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void memfsMatchesTmpfs(TransportKind transport) throws Exception {
        assumeTrue(Files.isWritable(Path.of("/dev/fuse")), "needs /dev/fuse");
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "needs tmpfs at /dev/shm");
        if (transport == TransportKind.URING) {
            assumeTrue(Files.isWritable(ENABLE_URING), "needs FUSE-over-io_uring");
            Files.writeString(ENABLE_URING, "1");
        }
        Path ref = Files.createTempDirectory(shm, "sidebyside");
        String tmpfs;
        try {
            tmpfs = run(ref);
        } finally {
            new ProcessBuilder("rm", "-rf", ref.toString()).start().waitFor(60, TimeUnit.SECONDS);
        }
        String memfs;
        try (Mount m = Fuse.mount(tmp, new MemFs(), MountOptions.defaults().withTransport(transport))) {
            memfs = run(m.mountpoint());
        }
        assertTrue(tmpfs.contains("times write file -mc dir ---"), tmpfs);
        assertEquals(tmpfs, memfs);

        Path source = Files.createTempDirectory(shm, "sidebyside-src");
        Path mnt = Files.createDirectory(tmp.resolve("pt"));
        try {
            String passthrough;
            try (Mount m = Fuse.mount(mnt, new PassthroughFs(PassthroughFs.Options.of(source)),
                    MountOptions.defaults().withTransport(transport))) {
                passthrough = run(m.mountpoint());
            }
            // passthrough refuses xattrs on symlinks (fs/DESIGN.md: its magic-link path would follow the symlink)
            assertEquals("xattr trusted on symlink EPERM", line(passthrough, "xattr trusted on symlink"));
            assertEquals(without(tmpfs, "xattr trusted on symlink"), without(passthrough, "xattr trusted on symlink"),
                    "passthrough over tmpfs");
        } finally {
            new ProcessBuilder("rm", "-rf", source.toString()).start().waitFor(60, TimeUnit.SECONDS);
        }
    }

    private static String line(String out, String label) {
        return out.lines().filter(l -> l.startsWith(label + " ")).findFirst().orElse("");
    }

    private static String without(String out, String label) {
        return String.join("\n", out.lines().filter(l -> !l.startsWith(label + " ")).toList());
    }

    private static String run(Path dir) throws Exception {
        Path f = Files.createTempFile("sidebyside", ".py");
        try (InputStream in = SideBySideTest.class.getResourceAsStream("sidebyside.py")) {
            Files.write(f, in.readAllBytes());
        }
        try {
            Process p = new ProcessBuilder(List.of("python3", f.toString(), dir.toString())).redirectErrorStream(true).start();
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "script timed out");
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        } finally {
            Files.deleteIfExists(f);
        }
    }
}
