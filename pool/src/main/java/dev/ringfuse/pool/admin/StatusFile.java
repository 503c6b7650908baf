package dev.ringfuse.pool.admin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The outcome of the last `pool verify` (time, blocks, errors) and of the last scrub, kept next to the registry.
 * Device error counters are not kept: `pool status` shows those of the process holding the pool, as ZFS does.
 */
final class StatusFile {
    private StatusFile() {}

    static Path path(PoolRegistry r, String pool) {
        return r.file().toAbsolutePath().resolveSibling(r.file().getFileName() + ".d").resolve(pool + ".verify");
    }

    /** The last verify's summary line ("never verified" before the first; files of older versions held counts after it). */
    static String verifyLine(PoolRegistry r, String pool) {
        try {
            return Files.readAllLines(path(r, pool)).getFirst().strip();
        } catch (IOException | java.util.NoSuchElementException e) {
            return "never verified";
        }
    }

    /** The last scrub's summary line ("never scrubbed" before the first). */
    static String scrubLine(PoolRegistry r, String pool) {
        try {
            return Files.readString(path(r, pool).resolveSibling(pool + ".scrub")).strip();
        } catch (IOException e) {
            return "never scrubbed";
        }
    }

    static void saveScrub(PoolRegistry r, String pool, String line) throws IOException {
        Path p = path(r, pool).resolveSibling(pool + ".scrub");
        Files.createDirectories(p.getParent());
        Files.writeString(p, line + "\n");
    }

    static void save(PoolRegistry r, String pool, int errors, long blocks) throws IOException {
        Path p = path(r, pool);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "last verify " + Instant.now() + ": " + blocks + " blocks, " + errors + " error(s)\n");
    }
}
