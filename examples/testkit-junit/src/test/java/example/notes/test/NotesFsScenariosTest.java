package example.notes.test;

import dev.ringfuse.MountOptions;
import dev.ringfuse.fs.PathFileSystemAdapter;
import dev.ringfuse.testkit.Feature;
import dev.ringfuse.testkit.FuseMount;
import dev.ringfuse.testkit.PosixScenarios;
import example.notes.NotesFs;
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

    /**
     * What NotesFs leaves out (see its class comment); the scenarios that need these are skipped, every
     * other one must pass: files, directories, symlinks, fifos and device nodes, renames, attributes,
     * timestamps, permissions and ownership as other users, locks, O_DIRECT, names, concurrency.
     */
    @Override
    protected Set<Feature> features() {
        return EnumSet.complementOf(EnumSet.of(Feature.XATTR, Feature.RENAME_EXCHANGE,
                Feature.SPARSE, Feature.FALLOCATE, Feature.SEEK_HOLE, Feature.TMPFILE, Feature.POSIX_ACL));
    }
}
