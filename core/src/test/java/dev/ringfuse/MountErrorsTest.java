package dev.ringfuse;

import dev.ringfuse.mount.Mounter;
import dev.ringfuse.sys.Libc;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** Every mount failure is a MountException that says what is wrong and what to do. */
@Timeout(60)
class MountErrorsTest {
    @TempDir
    Path dir;

    @Test
    void missingMountpoint() {
        MountException e = assertThrows(MountException.class, () -> Fuse.mount(dir.resolve("nope"), new HelloFs()));
        assertTrue(e.getMessage().contains("does not exist") && e.getMessage().contains("mkdir -p"), e.getMessage());
    }

    @Test
    void mountpointNotADirectory() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        MountException e = assertThrows(MountException.class, () -> Fuse.mount(file, new HelloFs()));
        assertTrue(e.getMessage().contains("not a directory"), e.getMessage());
    }

    @Test
    void alreadyMounted() throws Exception {
        try (Mount m = Fuse.mount(dir, new HelloFs())) {
            MountException e = assertThrows(MountException.class, () -> Fuse.mount(dir, new HelloFs()));
            assertTrue(e.getMessage().contains("already mounted"), e.getMessage());
            assertTrue(Files.exists(dir.resolve("hello")), "the first mount is unharmed");
        }
    }

    @Test
    void staleMountIsExplainedAndClearable() throws Exception {
        // a server that died: mounted, then every /dev/fuse descriptor closed without serving
        int fd = Mounter.openDevice();
        Mounter.mountDirect(fd, dir, MountOptions.defaults());
        Libc.close(fd);
        FileSystemException stat = assertThrows(FileSystemException.class, () -> Files.readAttributes(dir,
                java.nio.file.attribute.BasicFileAttributes.class));
        assertTrue(String.valueOf(stat.getReason()).contains("not connected"), "callers see ENOTCONN: " + stat);

        MountException e = assertThrows(MountException.class, () -> Fuse.mount(dir, new HelloFs()));
        assertTrue(e.getMessage().contains("stale") && e.getMessage().contains("fusermount3 -u -z"), e.getMessage());
        assertEquals(107, e.errno());

        assertTrue(Fuse.clearStale(dir));
        try (Mount m = Fuse.mount(dir, new HelloFs())) {
            assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")));
        }
        assertFalse(Fuse.clearStale(dir), "nothing left to clear");
    }

    @Test
    void badOptionsAreRefusedBeforeMounting() throws Exception {
        MountException e = assertThrows(MountException.class,
                () -> Fuse.mount(dir, new HelloFs(), MountOptions.defaults().withOptions("bogus_option")));
        assertTrue(e.getMessage().contains("unknown mount option \"bogus_option\""), e.getMessage());
        assertFalse(MountMethodsTest.mounted(dir));
        assertThrows(IllegalArgumentException.class, () -> MountOptions.defaults().withThreads(0));
    }
}
