package dev.ringfuse.pool.admin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/** The outcome of the last `pool verify` (time, errors, per-device counts) and of the last scrub, kept next to the registry. */
final class StatusFile {
    private final String line;
    private final long[][] counts;

    private StatusFile(String line, long[][] counts) {
        this.line = line;
        this.counts = counts;
    }

    static Path path(PoolRegistry r, String pool) {
        return r.file().toAbsolutePath().resolveSibling(r.file().getFileName() + ".d").resolve(pool + ".verify");
    }

    static StatusFile of(PoolRegistry r, String pool) {
        try {
            List<String> lines = Files.readAllLines(path(r, pool));
            long[][] c = new long[lines.size() - 1][3];
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).split(" ");
                for (int k = 0; k < 3; k++) c[i - 1][k] = Long.parseLong(f[k]);
            }
            return new StatusFile(lines.getFirst(), c);
        } catch (IOException | RuntimeException e) {
            return new StatusFile(null, new long[0][]);
        }
    }

    String describe() {
        return line == null ? "never verified" : line;
    }

    long[] counts(int device) {
        return device < counts.length ? counts[device] : new long[3];
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

    static void save(PoolRegistry r, String pool, int errors, long blocks, long[][] counts) throws IOException {
        Path p = path(r, pool);
        Files.createDirectories(p.getParent());
        StringBuilder s = new StringBuilder("last verify " + Instant.now() + ": " + blocks + " blocks, " + errors + " error(s)\n");
        for (long[] c : counts) s.append(c[0]).append(' ').append(c[1]).append(' ').append(c[2]).append('\n');
        Files.writeString(p, s);
    }
}
