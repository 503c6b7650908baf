package dev.ringfuse.sqlfs;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates and migrates the schema: table {@code schema_version} holds one row with the version; version
 * {@code n} is reached from {@code n - 1} by the statements of {@link Dialect#migration}, all in one
 * transaction. A database whose version is newer than {@link #VERSION}, or that holds other tables and no
 * ringfuse schema, is refused.
 */
final class Schema {
    private Schema() {}

    /** The value of {@code fs_meta.format}: says that a database is a ringfuse filesystem. */
    static final String FORMAT = "ringfuse-sqlfs";
    /** The newest schema version this code knows. */
    static final int VERSION = 4;
    /** Version 3: directory listings read in id order from a cookie on, one index range per request. */
    static final String LISTING_INDEX = "CREATE INDEX dentries_parent_id ON dentries(parent, id)";

    /** Brings the database to {@link #VERSION}; returns the chunk size recorded in it. */
    static int migrate(Connection c, Dialect d, int chunkSizeForNew) throws SQLException {
        boolean auto = c.getAutoCommit();
        try (Statement s = c.createStatement()) {
            if (d == Dialect.SQLITE) {
                c.setAutoCommit(true);
                s.execute("BEGIN IMMEDIATE");
            } else {
                c.setAutoCommit(false);
                s.execute("SELECT pg_advisory_xact_lock(7283365412)"); // two mounts starting at once migrate once
            }
            try {
                List<String> tables = tables(s, d);
                int version;
                if (tables.contains("schema_version")) {
                    version = version(s);
                    if (version > VERSION) {
                        throw new SqlFsException("the database has schema version " + version
                                + ", newer than this ringfuse understands (" + VERSION + "): upgrade ringfuse");
                    }
                    if (version > 0 && !FORMAT.equals(meta(s, "format"))) {
                        throw new SqlFsException("the database has a schema_version table but is not a ringfuse filesystem");
                    }
                } else {
                    if (!tables.isEmpty()) {
                        throw new SqlFsException("the database holds tables of another application ("
                                + String.join(", ", tables.subList(0, Math.min(5, tables.size())))
                                + "), not a ringfuse filesystem: use an empty database");
                    }
                    s.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)");
                    s.execute("INSERT INTO schema_version VALUES (0)");
                    version = 0;
                }
                for (int v = version + 1; v <= VERSION; v++) {
                    for (String sql : d.migration(v, chunkSizeForNew)) s.execute(sql);
                    s.execute("UPDATE schema_version SET version = " + v);
                }
                int chunk = Integer.parseInt(meta(s, "chunk_size"));
                if (d == Dialect.SQLITE) s.execute("COMMIT");
                else c.commit();
                return chunk;
            } catch (SQLException | RuntimeException e) {
                try {
                    if (d == Dialect.SQLITE) s.execute("ROLLBACK");
                    else c.rollback();
                } catch (SQLException ignored) {
                    // the original failure is what matters
                }
                throw e;
            }
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static List<String> tables(Statement s, Dialect d) throws SQLException {
        String q = d == Dialect.SQLITE
                ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                : "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1";
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(q)) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    private static int version(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT version FROM schema_version")) {
            if (!rs.next()) throw new SqlFsException("the database's schema_version table is empty: not a ringfuse filesystem");
            return rs.getInt(1);
        }
    }

    private static String meta(Statement s, String key) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT value FROM fs_meta WHERE key = '" + key + "'")) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            return null; // no fs_meta: not ours
        }
    }
}
