package dev.ringfuse.sqlfs;

import dev.ringfuse.lowlevel.StatFs;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;

/**
 * statfs: SQLite reports the disk that holds the database file (the database grows into it); PostgreSQL
 * cannot see the server's disk, so it reports a nominal 1 TiB less the database's size. Inodes are not
 * limited by the schema: a nominal 2^32 less the highest node id.
 */
final class Space {
    private Space() {}

    static final int BLOCK = 4096;
    private static final long FILES = 1L << 32;

    /** The file of a {@code jdbc:sqlite:} URL. */
    static Path sqliteFile(String url) {
        return Path.of(url.substring("jdbc:sqlite:".length()).replaceFirst("\\?.*", "")).toAbsolutePath();
    }

    static StatFs statfs(Database db) {
        long maxIno = db.read(c -> {
            try (Sql.Stmt ps = Sql.prepare(c, "SELECT max(ino) FROM inodes");
                 ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0L;
            }
        });
        long ffree = Math.max(0, FILES - maxIno);
        if (db.dialect == Dialect.SQLITE) {
            try {
                Path file = sqliteFile(db.url);
                FileStore store = Files.getFileStore(file.getParent());
                long blocks = store.getTotalSpace() / BLOCK;
                return new StatFs(blocks, store.getUnallocatedSpace() / BLOCK, store.getUsableSpace() / BLOCK,
                        FILES, ffree, BLOCK, Store.NAME_MAX, BLOCK);
            } catch (IOException | RuntimeException e) {
                // fall through to the nominal figures
            }
        }
        long used = db.dialect == Dialect.POSTGRES ? db.read(c -> {
            try (Sql.Stmt ps = Sql.prepare(c, "SELECT pg_database_size(current_database())");
                 ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0L;
            }
        }) : 0;
        long blocks = (1L << 40) / BLOCK;
        long free = Math.max(0, blocks - used / BLOCK);
        return new StatFs(blocks, free, free, FILES, ffree, BLOCK, Store.NAME_MAX, BLOCK);
    }
}
