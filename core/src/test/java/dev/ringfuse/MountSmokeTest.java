package dev.ringfuse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(60)
class MountSmokeTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void mountsReadsListsAndUnmounts(TransportKind transport) throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withThreads(2).withTransport(transport))) {
            assertTrue(m.isAlive());
            assertEquals(transport, m.transport());
            assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")));
            try (Stream<Path> s = Files.list(dir)) {
                assertEquals(List.of("hello"), s.map(p -> p.getFileName().toString()).toList());
            }
            assertFalse(Files.exists(dir.resolve("missing")));
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count(), "the mount point is empty again after close");
        }
    }

    /** A filesystem without statfs (HelloFs) answers it as libfuse does: df lists the mount instead of failing. */
    @Test
    void aFilesystemWithoutStatfsStillAnswersDf() throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withTransport(TransportKind.DEV))) {
            assertEquals(0, Files.getFileStore(dir.resolve("hello")).getTotalSpace(), "statfs(2): no blocks, no error");
            Process p = new ProcessBuilder("df", dir.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS), "df finished");
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains(dir.toString()), out);
        }
    }
}
