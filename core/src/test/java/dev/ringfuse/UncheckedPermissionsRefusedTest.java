package dev.ringfuse;

import dev.ringfuse.fs.PathFileSystem;
import dev.ringfuse.fs.PathFileSystemAdapter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * allow_other without default_permissions leaves every check to the filesystem: a filesystem that does not
 * declare it checks permissions is refused before anything is mounted; one that declares it is mounted.
 */
@Timeout(60)
class UncheckedPermissionsRefusedTest {
    private static final MountOptions OPEN_TO_ALL = MountOptions.defaults().withOptions("allow_other,no_default_permissions");

    @TempDir
    Path dir;

    @Test
    void aFilesystemThatChecksNothingIsRefused() {
        MountException e = assertThrows(MountException.class, () -> Fuse.mount(dir, new HelloFs(), OPEN_TO_ALL));
        assertTrue(e.getMessage().contains("allow_other and no_default_permissions")
                && e.getMessage().contains("HelloFs") && e.getMessage().contains("mount with default_permissions"),
                e.getMessage());
        assertEquals(1, e.errno());
        assertFalse(isMounted(dir), "nothing was mounted");
    }

    @Test
    void thePathApiFollowsTheFilesystemsDeclaration() throws Exception {
        PathFileSystem silent = new PathFileSystem() {};
        assertThrows(MountException.class, () -> Fuse.mount(dir, new PathFileSystemAdapter(silent), OPEN_TO_ALL));
        PathFileSystem checking = new PathFileSystem() {
            @Override public boolean checksPermissions() { return true; }
        };
        try (Mount m = Fuse.mount(dir, new PathFileSystemAdapter(checking), OPEN_TO_ALL)) {
            assertTrue(isMounted(dir));
        }
    }

    @Test
    void aDeclaringFilesystemAndTheSafeCombinationsMount() throws Exception {
        LowLevelFileSystemThatChecks checking = new LowLevelFileSystemThatChecks();
        try (Mount m = Fuse.mount(dir, checking, OPEN_TO_ALL)) {
            assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")));
        }
        // the kernel checks (default_permissions), or only the mounting user gets in (no allow_other)
        for (String o : new String[] {"allow_other", "no_default_permissions"}) {
            try (Mount m = Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withOptions(o))) {
                assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")), o);
            }
        }
    }

    private static final class LowLevelFileSystemThatChecks extends HelloFs {
        @Override public boolean checksPermissions() { return true; }
    }

    private static boolean isMounted(Path p) {
        try {
            return Files.readAllLines(Path.of("/proc/self/mounts")).stream().anyMatch(l -> l.split(" ")[1].equals(p.toString()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
