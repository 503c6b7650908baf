package dev.ringfuse.sqlfs;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prepared statements kept per physical connection. Preparing costs more than running: SQLite compiles
 * the statement each time (tens of µs for a join, more than the indexed lookup it then runs) and the pool's
 * proxy closes statements with the connection. A statement from {@link #prepare} belongs to the physical
 * connection under the pool's proxy and lives as long as it; its {@code close()} does nothing, so callers
 * keep using try-with-resources (their result sets must still be closed: an open SQLite result set holds
 * its read transaction).
 */
final class Sql {
    private Sql() {}

    private static final Map<Connection, Map<String, PreparedStatement>> CACHE = new ConcurrentHashMap<>();
    /** Prepared statements made (the misses of the cache), for tests and measurements. */
    static final java.util.concurrent.atomic.LongAdder PREPARED = new java.util.concurrent.atomic.LongAdder();
    /** Statements run through the cache, for measurements (statements per FUSE operation). */
    static final java.util.concurrent.atomic.LongAdder EXECUTED = new java.util.concurrent.atomic.LongAdder();

    /** The statement {@code sql} on {@code c}'s physical connection, prepared on first use. */
    static PreparedStatement prepare(Connection c, String sql) throws SQLException {
        Connection physical = c.unwrap(Connection.class);
        Map<String, PreparedStatement> mine = CACHE.get(physical);
        if (mine == null) {
            CACHE.keySet().removeIf(Sql::closed); // connections the pool has dropped take their statements along
            mine = new ConcurrentHashMap<>();
            CACHE.put(physical, mine);
        }
        PreparedStatement ps = mine.get(sql);
        if (ps == null) {
            PREPARED.increment();
            ps = keep(physical.prepareStatement(sql), mine, sql);
            mine.put(sql, ps);
        }
        return ps;
    }

    /** Runs a statement without parameters or results (BEGIN, COMMIT, ...) through the cache. */
    static void exec(Connection c, String sql) throws SQLException {
        prepare(c, sql).execute();
    }

    private static boolean closed(Connection c) {
        try {
            return c.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private static PreparedStatement keep(PreparedStatement target, Map<String, PreparedStatement> mine, String sql) {
        InvocationHandler h = (proxy, m, args) -> {
            String name = m.getName();
            if (name.equals("close")) return null;
            boolean execute = name.startsWith("execute");
            if (execute) EXECUTED.increment();
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                // sqlite-jdbc finalizes a statement whose step failed with anything but BUSY, LOCKED, MISUSE or
                // CONSTRAINT (SQLITE_FULL on a full disk, SQLITE_IOERR): kept, it would answer every later call
                // with "statement is not executing", and a dead COMMIT leaves the connection inside its
                // transaction. A statement that failed is dropped and prepared again on its next use.
                if (execute) {
                    mine.remove(sql, proxy);
                    try {
                        target.close();
                    } catch (SQLException ignored) {
                        // already finalized by the driver: nothing left to free
                    }
                }
                throw e.getCause();
            }
        };
        return (PreparedStatement) Proxy.newProxyInstance(Sql.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, h);
    }
}
