package dev.ringfuse.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The POSIX scenario suite, written once and run on every filesystem and transport. Subclass it, say where
 * the filesystem under test is mounted, and (optionally) which optional {@link Feature}s it claims:
 *
 * <pre>{@code
 * class MyFsScenariosTest extends PosixScenarios {
 *     @RegisterExtension
 *     static final FuseMount MOUNT = FuseMount.of(MyFs::new).timeout(Duration.ofMinutes(2));
 *
 *     @Override protected Path root() { return MOUNT.root(); }
 *     @Override protected Set<Feature> features() { return EnumSet.complementOf(EnumSet.of(Feature.TMPFILE)); }
 * }
 * }</pre>
 *
 * <p>Each scenario runs in a fresh subdirectory of {@link #root()} ({@link #dir()}), uses real system calls
 * only, and asserts exact results (kernel tmpfs is the reference). Every scenario has a timeout and runs
 * on a separate thread, so a hung filesystem fails the test instead of hanging the build. Scenarios that
 * need an unclaimed feature are skipped with the reason; a claimed one must pass. Fresh directories are
 * left in place: the mount is thrown away after the class.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class PosixScenarios implements PosixFileScenarios, PosixSpaceScenarios, PosixDirScenarios,
        PosixNameScenarios, PosixLinkScenarios, PosixRenameScenarios, PosixAttrScenarios, PosixOwnerScenarios,
        PosixXattrScenarios, PosixLockScenarios, PosixConcurrencyScenarios, PosixPermissionScenarios,
        PosixAclScenarios {

    private static final AtomicInteger SEQ = new AtomicInteger();
    private Path dir;

    /** For subclasses, which JUnit instantiates once per scenario. */
    protected PosixScenarios() {}

    /** The root of the filesystem under test (its mount point). */
    protected abstract Path root();

    /** The optional features the filesystem under test claims; all of them unless overridden. */
    protected Set<Feature> features() {
        return EnumSet.allOf(Feature.class);
    }

    @Override
    public final boolean claims(Feature feature) {
        return features().contains(feature);
    }

    @Override
    public final Path dir() {
        return dir;
    }

    @BeforeEach
    final void freshDirectory(TestInfo info) throws IOException {
        String name = info.getTestMethod().map(m -> m.getName()).orElse("test");
        dir = root().resolve("s" + SEQ.incrementAndGet() + "-" + name);
        Files.createDirectory(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
