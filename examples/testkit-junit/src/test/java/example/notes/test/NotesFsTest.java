package example.notes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ringfuse.fs.PathFileSystemAdapter;
import dev.ringfuse.testkit.FuseMount;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Tests of your own filesystem, mounted for real by the testkit's extension (and always unmounted). */
class NotesFsTest {
    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(() -> new PathFileSystemAdapter(new NotesFs())).timeout(Duration.ofMinutes(1));

    @Test
    void keepsWhatIsWritten() throws Exception {
        Path note = MOUNT.testDir().resolve("todo.txt");
        Files.writeString(note, "write a filesystem\n");
        Files.writeString(note, "test it\n", java.nio.file.StandardOpenOption.APPEND);
        assertEquals(List.of("write a filesystem", "test it"), Files.readAllLines(note));
    }

    @Test
    void refusesToRemoveAFullDirectory() throws Exception {
        Path d = Files.createDirectories(MOUNT.testDir().resolve("d/e"));
        assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(d.getParent()));
    }
}
