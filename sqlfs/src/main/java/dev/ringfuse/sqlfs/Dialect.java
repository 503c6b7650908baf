package dev.ringfuse.sqlfs;

import java.util.List;

/**
 * The two supported databases and where their SQL differs. Everything else (the queries of the filesystem)
 * is written once in the SQL both understand: {@code INSERT ... RETURNING}, {@code ON CONFLICT DO UPDATE},
 * {@code LIMIT}.
 */
enum Dialect {
    SQLITE, POSTGRES;

    static Dialect of(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:sqlite:")) return SQLITE;
        if (jdbcUrl.startsWith("jdbc:postgresql:")) return POSTGRES;
        throw new IllegalArgumentException("unsupported database URL (jdbc:sqlite: or jdbc:postgresql: expected): " + jdbcUrl);
    }

    /** The statements of schema version {@code version}: migration {@code version - 1 -> version}. */
    List<String> migration(int version, int chunkSize) {
        return switch (this) {
            case SQLITE -> SqliteSchema.migration(version, chunkSize);
            case POSTGRES -> PostgresSchema.migration(version, chunkSize);
        };
    }
}
