package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source directory that contains the mount point (mirroring {@code /} at {@code /mnt/x} is the common form): the
 * mount point's name in the mirror is the directory the mount covers, as a bind mount without submounts shows it,
 * never the mount itself. Crossing into it made the server send requests to itself: over io_uring its queue thread
 * waited for its own GETATTR for good (D state, no unmount or abort ended it); over /dev/fuse {@code m/m} was the
 * mount's root again, {@code m/m/m} failed with ELOOP, and the server, holding a descriptor into its own mount, never
 * ended after the unmount. Driven by coreutils and NIO through the kernel.
 */
@Timeout(120)
class SourceHoldsTheMountTest {

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void theMountPointInsideTheSourceIsTheDirectoryItCovers(TransportKind transport) throws Exception {
        if (transport == TransportKind.URING) Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
        Path source = MountedFsKit.newMountpoint("passthrough-self-src");
        Files.writeString(source.resolve("top"), "at the top");
        Path mnt = Files.createDirectory(source.resolve("m"));
        Files.writeString(mnt.resolve("under"), "covered by the mount");
        long coveredIno = (Long) Files.getAttribute(mnt, "unix:ino");
        Mount m = Fuse.mount(mnt, new PassthroughFs(PassthroughFs.Options.of(source).withKernel(PassthroughFs.KernelMode.OFF)),
                MountOptions.defaults().withTransport(transport).withThreads(1));
        try {
            MountedFsKit.withTimeout(Duration.ofSeconds(40), mnt, () -> {
                assertEquals(List.of("m", "top"), names(mnt), "the mirror of the source");
                run("ls", "-lR", mnt.toString()); // a stat of every entry, the mount point's name included
                Path self = mnt.resolve("m");
                assertTrue(Files.isDirectory(self), "the mount point's name is a directory");
                assertEquals(coveredIno, (Long) Files.getAttribute(self, "unix:ino"), "the directory under the mount");
                assertEquals(List.of("under"), names(self), "what the mount covers, not the mount again");
                assertEquals("covered by the mount", Files.readString(self.resolve("under")));
                Files.writeString(self.resolve("new"), "written beside it");
                assertEquals("at the top", Files.readString(self.resolve("..").resolve("top")), "its parent is the source");
                return null;
            });
        } finally {
            assertTrue(MountedFsKit.closeOrForce(m, mnt, Duration.ofSeconds(30)), "the mount ended by itself");
        }
        assertTrue(m.awaitUnmount(Duration.ofSeconds(10)), "the server ended after the unmount");
        assertEquals("written beside it", Files.readString(mnt.resolve("new")), "written into the covered directory");
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), String.join(" ", cmd) + " finished");
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
        assertTrue(!out.contains("ls:"), "no error from ls: " + out);
    }
}
