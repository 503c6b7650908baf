package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.testkit.MountedFsKit;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** xattr values up to 64 KiB (stored out of line past 4 KiB) survive export/import. */
@Timeout(300)
class LargeXattrTest {
    @TempDir
    Path tmp;

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(UserDefinedFileAttributeView x, String name) throws Exception {
        ByteBuffer v = ByteBuffer.allocate(x.size(name));
        x.read(name, v);
        return v.array();
    }

    @Test
    void largeValuesSurviveExportImport() throws Exception {
        Path img = tmp.resolve("x.img");
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.setLength(256L << 20);
        }
        Path mp = MountedFsKit.newMountpoint("poolx");
        Pool pool = Pool.create("x", List.<BlockDevice>of(UringBlockDevice.open(img)));
        pool.createDataset("x/a", Map.of("compression", "off"));
        int[] sizes = {100, 5000, 10_000, 65_536};
        PoolFsMountTest.mounted(pool, "x/a", mp, () -> {
            Path f = Files.createFile(mp.resolve("f"));
            UserDefinedFileAttributeView x = Files.getFileAttributeView(f, UserDefinedFileAttributeView.class);
            for (int s : sizes) x.write("v" + s, ByteBuffer.wrap(bytes(s, s)));
            x.write("v10000", ByteBuffer.wrap(bytes(20_000, 7))); // replace big by bigger
            x.write("v5000", ByteBuffer.wrap(bytes(50, 8))); // replace big by inline
            x.write("gone", ByteBuffer.wrap(bytes(30_000, 9)));
            x.delete("gone");
            return null;
        });
        pool.export(false);
        Pool again = Pool.open(List.<BlockDevice>of(UringBlockDevice.open(img)));
        PoolFsMountTest.mounted(again, "x/a", mp, () -> {
            UserDefinedFileAttributeView x = Files.getFileAttributeView(mp.resolve("f"), UserDefinedFileAttributeView.class);
            assertArrayEquals(bytes(100, 100), read(x, "v100"));
            assertArrayEquals(bytes(50, 8), read(x, "v5000"));
            assertArrayEquals(bytes(20_000, 7), read(x, "v10000"));
            assertArrayEquals(bytes(65_536, 65_536), read(x, "v65536"));
            assertEquals(List.of("v100", "v10000", "v5000", "v65536"), x.list().stream().sorted().toList());
            return null;
        });
        PoolVerifier.Report r = PoolVerifier.verify(again, null);
        assertTrue(r.clean(), r.errors().toString());
        again.export(false);
    }
}
