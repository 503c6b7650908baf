package example.notes;

import dev.ringfuse.MountOptions;
import dev.ringfuse.fs.PathFileSystemAdapter;
import dev.ringfuse.testkit.Feature;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.PosixScenarios;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The testkit's POSIX scenario suite (tmpfs is the reference) on your own filesystem. */
class NotesFsScenariosTest extends PosixScenarios {
    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(() -> new PathFileSystemAdapter(new NotesFs()))
            .options(MountOptions.defaults().withAllowOther(true)) // scenarios also run steps as other users
            .timeout(Duration.ofMinutes(3))
            .freshDirectories(false); // the suite makes its own

    @Override
    protected Path root() {
        return MOUNT.root();
    }

    /** What NotesFs does not implement: fallocate, SEEK_HOLE/SEEK_DATA, O_TMPFILE; those scenarios are skipped. */
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.FALLOCATE, Feature.SEEK_HOLE, Feature.TMPFILE, Feature.POSIX_ACL));
    }
}
