package example.notes.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ringfuse.fs.PathFileSystemAdapter;
import dev.ringfuse.testkit.FuseMount;
import example.notes.NotesFs;
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

    /** examples/run.sh runs these tests on the class path and on the module path: each run gets what it asked for. */
    @Test
    void runsOnThePathItWasGiven() {
        boolean modulePath = Boolean.getBoolean("example.modulePath");
        assertEquals(modulePath, NotesFs.class.getModule().isNamed(), "NotesFs in a named module");
        assertEquals(modulePath, FuseMount.class.getModule().isNamed(), "the testkit in a named module");
        assertEquals(modulePath, NotesFsTest.class.getModule().isNamed(), "the tests in a named module");
    }

    @Test
    void refusesToRemoveAFullDirectory() throws Exception {
        Path d = Files.createDirectories(MOUNT.testDir().resolve("d/e"));
        assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(d.getParent()));
    }
}
