package dev.ringfuse.sqlfs;

import java.util.List;

/**
 * The schema on SQLite, one list of statements per version (see docs/sql-schema.md for the contract).
 * Times default to "now" in nanoseconds so that applications may leave them out.
 */
final class SqliteSchema {
    private SqliteSchema() {}

    private static final String NOW_NS = "(CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) * 1000000)";

    static List<String> migration(int version, int chunkSize) {
        return switch (version) {
            case 1 -> List.of(
                    "CREATE TABLE fs_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                    "INSERT INTO fs_meta VALUES ('format', '" + Schema.FORMAT + "'), ('chunk_size', '" + chunkSize + "'), ('fsyncs', '0')",
                    """
                    CREATE TABLE inodes (
                      ino INTEGER PRIMARY KEY AUTOINCREMENT,
                      type TEXT NOT NULL CHECK (type IN ('file','dir','symlink','fifo','socket','char','block')),
                      mode INTEGER NOT NULL CHECK (mode BETWEEN 0 AND 4095),
                      uid INTEGER NOT NULL DEFAULT 0,
                      gid INTEGER NOT NULL DEFAULT 0,
                      atime_ns INTEGER NOT NULL DEFAULT %1$s,
                      mtime_ns INTEGER NOT NULL DEFAULT %1$s,
                      ctime_ns INTEGER NOT NULL DEFAULT %1$s,
                      size INTEGER NOT NULL DEFAULT 0,
                      nlink INTEGER NOT NULL DEFAULT 1,
                      rdev INTEGER NOT NULL DEFAULT 0)""".formatted(NOW_NS),
                    """
                    CREATE TABLE dentries (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      parent INTEGER NOT NULL REFERENCES inodes(ino),
                      name BLOB NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
                      child INTEGER NOT NULL REFERENCES inodes(ino) ON DELETE CASCADE,
                      UNIQUE (parent, name))""",
                    "CREATE INDEX dentries_child ON dentries(child)",
                    """
                    CREATE TABLE chunks (
                      ino INTEGER NOT NULL REFERENCES inodes(ino) ON DELETE CASCADE,
                      idx INTEGER NOT NULL,
                      data BLOB NOT NULL,
                      PRIMARY KEY (ino, idx))""",
                    "CREATE TABLE symlinks (ino INTEGER PRIMARY KEY REFERENCES inodes(ino) ON DELETE CASCADE, target BLOB NOT NULL)",
                    """
                    CREATE TABLE xattrs (
                      ino INTEGER NOT NULL REFERENCES inodes(ino) ON DELETE CASCADE,
                      name TEXT NOT NULL,
                      value BLOB NOT NULL,
                      PRIMARY KEY (ino, name))""",
                    "CREATE TABLE orphans (ino INTEGER NOT NULL REFERENCES inodes(ino) ON DELETE CASCADE, session INTEGER NOT NULL, PRIMARY KEY (ino, session))",
                    // changes made by other writers (applications), for the mount to invalidate the kernel's caches;
                    // the filesystem's own transactions set fs_quiet.on for their duration (never visible to others)
                    "CREATE TABLE fs_quiet (on_ INTEGER NOT NULL)",
                    "INSERT INTO fs_quiet VALUES (0)",
                    "CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, ino INTEGER, parent INTEGER, name BLOB)",
                    trigger("dentries_ins", "INSERT ON dentries", "NULL, NEW.parent, NEW.name"),
                    trigger("dentries_del", "DELETE ON dentries", "NULL, OLD.parent, OLD.name"),
                    trigger("dentries_upd", "UPDATE ON dentries", "NULL, OLD.parent, OLD.name), (NULL, NEW.parent, NEW.name"),
                    trigger("inodes_upd", "UPDATE ON inodes", "NEW.ino, NULL, NULL"),
                    trigger("chunks_ins", "INSERT ON chunks", "NEW.ino, NULL, NULL"),
                    trigger("chunks_upd", "UPDATE ON chunks", "NEW.ino, NULL, NULL"),
                    trigger("chunks_del", "DELETE ON chunks", "OLD.ino, NULL, NULL"),
                    "INSERT INTO inodes (ino, type, mode, nlink) VALUES (1, 'dir', 493, 2)");
            // as on PostgreSQL; stays empty here (one mount per SQLite file)
            case 2 -> List.of(
                    "CREATE TABLE open_files (ino INTEGER NOT NULL REFERENCES inodes(ino) ON DELETE CASCADE, session INTEGER NOT NULL, PRIMARY KEY (ino, session))");
            // a listing continues after a cookie (the dentry id): without this index every readdir request read
            // and sorted the whole directory (sqlfs/DESIGN.md, "Statements per operation")
            case 3 -> List.of(Schema.LISTING_INDEX);
            // PostgreSQL's writers' gate: SQLite has one writer and needs none; the version stays common
            case 4 -> List.of();
            default -> throw new IllegalArgumentException("no schema version " + version);
        };
    }

    private static String trigger(String name, String event, String values) {
        return "CREATE TRIGGER changes_" + name + " AFTER " + event
                + " WHEN (SELECT on_ FROM fs_quiet) = 0 BEGIN INSERT INTO changes (ino, parent, name) VALUES ("
                + values + "); END";
    }
}
