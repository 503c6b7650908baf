package example.notes.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /**
     * examples/run.sh runs these tests on the module path ({@code mvn test}) and on the class path
     * ({@code mvn test -Pclass-path}): each run must get the path it asked for, not fall back to the class
     * path without a word (as surefire does when it cannot read a module descriptor). The line it prints
     * lands in target/surefire-reports, where run.sh shows it.
     */
    @Test
    void runsOnThePathItWasGiven() {
        boolean modulePath = Boolean.getBoolean("example.modulePath");
        System.out.println("NotesFs in " + NotesFs.class.getModule() + ", the testkit in "
                + FuseMount.class.getModule() + ", the tests in " + getClass().getModule());
        assertEquals(modulePath, NotesFs.class.getModule().isNamed(), "NotesFs in a named module");
        assertEquals(modulePath, FuseMount.class.getModule().isNamed(), "the testkit in a named module");
        assertEquals(modulePath, getClass().getModule().isNamed(), "the tests in a named module");
        if (modulePath) { // the modules of the boot layer, resolved from the module path, not automatic ones
            assertEquals("example.notes.test", getClass().getModule().getName());
            assertEquals(ModuleLayer.boot(), FuseMount.class.getModule().getLayer());
            assertFalse(FuseMount.class.getModule().getDescriptor().isAutomatic(), "the testkit's own descriptor");
        }
    }

    @Test
    void refusesToRemoveAFullDirectory() throws Exception {
        Path d = Files.createDirectories(MOUNT.testDir().resolve("d/e"));
        assertThrows(DirectoryNotEmptyException.class, () -> Files.delete(d.getParent()));
    }
}
