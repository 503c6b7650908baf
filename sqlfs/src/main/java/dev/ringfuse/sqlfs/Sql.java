package dev.ringfuse.sqlfs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Prepared statements kept per physical connection. Preparing costs more than running: SQLite compiles
 * the statement each time (tens of µs for a join, more than the indexed lookup it then runs) and the pool's
 * proxy closes statements with the connection. A {@link Stmt} from {@link #prepare} belongs to the physical
 * connection under the pool's proxy and lives as long as it; its {@code close()} does nothing, so callers
 * keep using try-with-resources (their result sets must still be closed: an open SQLite result set holds
 * its read transaction).
 */
final class Sql {
    private Sql() {}

    private static final Map<Connection, Map<String, Stmt>> CACHE = new ConcurrentHashMap<>();
    /** Prepared statements made (the misses of the cache), for tests and measurements. */
    static final LongAdder PREPARED = new LongAdder();
    /** Statements run through the cache, for measurements (statements per FUSE operation). */
    static final LongAdder EXECUTED = new LongAdder();

    /** The statement {@code sql} on {@code c}'s physical connection, prepared on first use. */
    static Stmt prepare(Connection c, String sql) throws SQLException {
        Connection physical = c.unwrap(Connection.class);
        Map<String, Stmt> mine = CACHE.get(physical);
        if (mine == null) {
            CACHE.keySet().removeIf(Sql::closed); // connections the pool has dropped take their statements along
            mine = new ConcurrentHashMap<>();
            CACHE.put(physical, mine);
        }
        Stmt s = mine.get(sql);
        if (s == null) {
            PREPARED.increment();
            s = new Stmt(physical.prepareStatement(sql), mine, sql);
            mine.put(sql, s);
        }
        return s;
    }

    /** Runs a statement without parameters or results (BEGIN, COMMIT, ...) through the cache. */
    static void exec(Connection c, String sql) throws SQLException {
        prepare(c, sql).executeUpdate();
    }

    private static boolean closed(Connection c) {
        try {
            return c.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    /**
     * Whether a statement that failed with {@code e} can no longer be used. sqlite-jdbc finalizes a
     * statement whose step failed with anything but BUSY, LOCKED, MISUSE or CONSTRAINT (SQLITE_FULL on a
     * full disk, SQLITE_IOERR): kept, it would answer every later call with "statement is not executing"
     * (and a dead COMMIT leaves the connection inside its transaction). A constraint violation (the unique
     * key answering EEXIST, a common outcome of create) or a busy database leaves it usable: the driver
     * resets it before its next run. On PostgreSQL a statement outlives every error but a broken
     * connection, whose statements go with it.
     */
    static boolean broken(SQLException e) {
        if (e instanceof SQLiteException se) {
            int primary = se.getResultCode().code & 0xff;
            return primary != SQLiteErrorCode.SQLITE_CONSTRAINT.code && primary != SQLiteErrorCode.SQLITE_BUSY.code
                    && primary != SQLiteErrorCode.SQLITE_LOCKED.code;
        }
        return Errors.connectionLost(e);
    }

    /**
     * A cached prepared statement: the few calls the filesystem uses, passed straight to the driver's
     * statement (no reflective proxy, so no argument arrays or boxing of our own per call), counted, and
     * dropped from the cache when a failure left it unusable ({@link #broken}).
     */
    static final class Stmt implements AutoCloseable {
        private final PreparedStatement ps;
        private final Map<String, Stmt> owner;
        private final String sql;

        private Stmt(PreparedStatement ps, Map<String, Stmt> owner, String sql) {
            this.ps = ps;
            this.owner = owner;
            this.sql = sql;
        }

        void setLong(int i, long v) throws SQLException { ps.setLong(i, v); }

        void setInt(int i, int v) throws SQLException { ps.setInt(i, v); }

        void setBytes(int i, byte[] v) throws SQLException { ps.setBytes(i, v); }

        void setString(int i, String v) throws SQLException { ps.setString(i, v); }

        ResultSet executeQuery() throws SQLException {
            EXECUTED.increment();
            try {
                return ps.executeQuery();
            } catch (SQLException e) {
                throw failed(e);
            }
        }

        int executeUpdate() throws SQLException {
            EXECUTED.increment();
            try {
                return ps.executeUpdate();
            } catch (SQLException e) {
                throw failed(e);
            }
        }

        private SQLException failed(SQLException e) {
            if (broken(e)) {
                owner.remove(sql, this);
                try {
                    ps.close();
                } catch (SQLException ignored) {
                    // already finalized by the driver: nothing left to free
                }
            }
            return e;
        }

        /** Nothing: the statement stays prepared for the next use on its connection. */
        @Override
        public void close() {}
    }
}
