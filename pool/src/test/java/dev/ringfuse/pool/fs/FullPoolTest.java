package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A full dataset answers ENOSPC, stays consistent, deletion works and the space comes back. */
@Timeout(180)
class FullPoolTest {
    @Test
    void enospcThenDeleteThenWriteAgain() throws Exception {
        Pool pool = Pool.create("full", List.<BlockDevice>of(new MemoryDevice("m", 96L << 20)));
        pool.createDataset("full/d", Map.of());
        Path mp = MountedFsKit.newMountpoint("pool-full");
        byte[] chunk = new byte[1 << 20];
        new Random(4).nextBytes(chunk);
        PoolFsMountTest.mounted(pool, "full/d", mp, () -> {
            int files = 0;
            IOException full = null;
            while (full == null && files < 500) {
                try (FileChannel c = FileChannel.open(mp.resolve("f" + files), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    for (int i = 0; i < 4; i++) c.write(ByteBuffer.wrap(chunk));
                    c.force(true);
                    files++;
                } catch (IOException e) {
                    full = e;
                }
            }
            assertTrue(full != null && String.valueOf(full.getMessage()).contains("No space left"), String.valueOf(full));
            assertTrue(files > 10, "wrote " + files + " files of 4 MiB first");
            // still consistent: what was written reads back
            byte[] first = Files.readAllBytes(mp.resolve("f0"));
            assertArrayEquals(chunk, java.util.Arrays.copyOf(first, chunk.length));
            // deletion works on a full pool (commits use the reserve) and the space comes back
            for (int i = 0; i < files; i++) Files.delete(mp.resolve("f" + i));
            Files.deleteIfExists(mp.resolve("f" + files));
            for (int k = 0; k < 3; k++) {
                try (FileChannel c = FileChannel.open(mp, StandardOpenOption.READ)) {
                    c.force(true); // commits; frees are reusable once the next txg is committed
                }
                Files.writeString(mp.resolve("tick"), "t" + k);
            }
            try (FileChannel c = FileChannel.open(mp.resolve("again"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                for (int i = 0; i < 8; i++) c.write(ByteBuffer.wrap(chunk));
                c.force(true);
            }
            return null;
        });
        PoolVerifier.Report r = PoolVerifier.verify(pool, null);
        assertTrue(r.clean(), r.errors().toString());
        pool.close();
    }
}
