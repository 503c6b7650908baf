package dev.ringfuse.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The pre-written file every benchmark reads and overwrites at random, aligned offsets (JUring's methodology).
 * One per benchmark JVM; written fully before measuring so reads hit real data (and the page cache, unless
 * O_DIRECT).
 */
final class DataFile {
    static final long SIZE = Long.getLong("bench.fileMiB", 256) << 20;
    private static Path path;
    private static boolean warmed;

    private DataFile() {}

    /** The data file: the one named by {@code -Dbench.file} (created by the launcher), else a fresh one. */
    static synchronized Path path() {
        if (path == null) {
            String given = System.getProperty("bench.file");
            path = given != null ? Path.of(given) : create();
        }
        return path;
    }

    /**
     * Caches the whole file once per JVM, in 4 KiB folios ({@link PageCache}), so a page-cache benchmark starts
     * from the same state whatever ran before it: O_DIRECT writes of the previous fork drop the pages they
     * overwrite, this VM's DAMON reclaim pages out file data left untouched for a minute (without the warm-up the
     * first seconds of a page-cache fork read from the disk, at a speed that depends on the engine's depth), and
     * sequential I/O leaves large folios that make 4 KiB buffered writes on ext4 6x dearer.
     */
    static synchronized void warmPageCache() {
        if (warmed) return;
        PageCache.cacheInSmallFolios(path(), SIZE);
        warmed = true;
    }

    /** Creates and fills a new data file (the launcher does this once and hands it to every fork). */
    static Path create() {
        try {
            Path dir = Path.of(System.getProperty("bench.dir", System.getProperty("java.io.tmpdir")));
            Path p = Files.createTempFile(dir, "uring-bench-", ".dat");
            p.toFile().deleteOnExit();
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
                for (int i = 0; i < chunk.capacity(); i++) chunk.put(i, (byte) (i * 131 + 7));
                for (long off = 0; off < SIZE; off += chunk.capacity()) {
                    chunk.clear();
                    while (chunk.hasRemaining()) ch.write(chunk, off + chunk.position());
                }
                ch.force(true);
            }
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** xorshift64 random block offsets, aligned to the I/O size; one generator per benchmark thread. */
    static final class Offsets {
        private final long blocks;
        private final int size;
        private long s;

        Offsets(int size, long seed) {
            this.size = size;
            this.blocks = SIZE / size;
            this.s = seed | 1;
        }

        long next() {
            s ^= s << 13;
            s ^= s >>> 7;
            s ^= s << 17;
            return Math.floorMod(s, blocks) * size;
        }
    }
}
