package dev.ringfuse.testkit;

import dev.ringfuse.fs.PathFileSystemAdapter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The migration guide's example filesystem, mounted: create, write, read, list, truncate, unlink. */
class MigratedMemoryFsTest {
    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(() -> new PathFileSystemAdapter(new MigratedMemoryFs()))
            .timeout(Duration.ofSeconds(60)).freshDirectories(false);

    @Test
    void behavesLikeASmallFlatFilesystem() throws Exception {
        Path f = MOUNT.root().resolve("hello.txt");
        Files.writeString(f, "hello from the path API");
        assertEquals("hello from the path API", Files.readString(f));
        try (var s = Files.list(MOUNT.root())) {
            assertEquals(List.of("hello.txt"), s.map(p -> p.getFileName().toString()).toList());
        }
        Files.writeString(f, "short");
        assertEquals("short", Files.readString(f));
        Files.delete(f);
        assertFalse(Files.exists(f));
    }
}
