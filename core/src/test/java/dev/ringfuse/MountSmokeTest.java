package dev.ringfuse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(60)
class MountSmokeTest {
    @TempDir
    Path dir;

    @Test
    void mountsReadsListsAndUnmounts() throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withThreads(2))) {
            assertTrue(m.isAlive());
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
}
