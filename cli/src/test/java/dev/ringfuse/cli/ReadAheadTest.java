package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ReadAhead changes only a FUSE mount's window (PoolReadAheadCliTest sets one through a real mount). */
class ReadAheadTest {
    @TempDir
    Path dir;

    @Test
    void aPathThatIsNotAFuseMountHasNoWindowToSet() {
        // the device of a plain directory is the disk's (or its partition's): its bdi is not the mount's
        assertThrows(IOException.class, () -> ReadAhead.bdiFile(dir));
        assertThrows(IOException.class, () -> ReadAhead.bdiFile(Path.of("/")));
    }
}
