package dev.ringfuse.pool.admin;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed during a receive leaves its spool (the whole stream) beside the control socket; the next
 * server of that pool removes it, and nothing of another pool, even one whose name begins with this one's.
 */
@Timeout(60)
class StaleSpoolTest {
    @TempDir
    Path tmp;

    @Test
    void theNextServerRemovesItsOwnStaleSpoolsOnly() throws Exception {
        PoolRegistry registry = new PoolRegistry(tmp.resolve("pools"));
        Path dir = PoolControl.socket(registry, "sp").getParent();
        Files.createDirectories(dir);
        Path mine = Files.createTempFile(dir, "sp.recv-", ".stream");
        Files.write(mine, new byte[4096]);
        Path lookalike = Files.createTempFile(dir, "sp.recv-1.recv-", ".stream"); // of a pool named "sp.recv-1"
        Path other = Files.createTempFile(dir, "spx.recv-", ".stream");
        Path notSpool = dir.resolve("sp.recv-notes.txt");
        Files.writeString(notSpool, "kept");

        try (Pool pool = Pool.create("sp", List.<BlockDevice>of(new MemoryDevice("sp", 64L << 20)));
             PoolControl control = PoolControl.start(registry, pool)) {
            assertFalse(Files.exists(mine), "the dead server's spool of this pool is gone");
            assertTrue(Files.exists(lookalike), "pool sp.recv-1's spool stays");
            assertTrue(Files.exists(other), "pool spx's spool stays");
            assertTrue(Files.exists(notSpool), "a file that is no spool stays");
        }
    }
}
