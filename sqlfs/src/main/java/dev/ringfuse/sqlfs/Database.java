package dev.ringfuse.sqlfs;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ringfuse.FuseException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The connection pools and the one-transaction-per-operation rule. {@link #write} runs its work in a write
 * transaction, {@link #read} in a read transaction; either commits only if the work returns, and turns
 * database errors into errnos ({@link Errors}).
 *
 * <p><b>SQLite</b>: one writer connection (SQLite has one writer at a time anyway) whose transactions begin
 * with {@code BEGIN IMMEDIATE}, so a transaction that reads and then writes never fails to upgrade; a small
 * pool of reader connections that WAL lets run beside the writer. Each write transaction sets
 * {@code fs_quiet} for its duration so that the change-log triggers record only other writers' changes.
 * Connections run in auto-commit mode and the transactions are explicit statements (the driver would
 * otherwise re-open an IMMEDIATE transaction right after each commit and hold the write lock while idle).
 *
 * <p><b>PostgreSQL</b>: one pool, SERIALIZABLE transactions retried on serialization failures and
 * deadlocks; commits are asynchronous ({@code synchronous_commit = off}) except the fsync marker.
 */
final class Database implements AutoCloseable {
    /** The work of one operation, run inside its transaction. */
    @FunctionalInterface
    interface Work<T> { T run(Connection c) throws SQLException; }

    private static final System.Logger LOG = System.getLogger("dev.ringfuse.sqlfs");
    private static final int RETRIES = 50;
    /**
     * A write transaction that failed serialization this many times runs alone. Under SERIALIZABLE a large
     * one (a truncate deleting thousands of block rows) takes enough predicate locks for PostgreSQL to widen
     * them to pages and tables, after which it conflicts with every concurrent writer and can lose every
     * retry: fsx's four writers on 32 MiB files made a truncate fail 50 times running (EIO). So every write
     * transaction begins by locking the gate shared, and one that failed this often locks it exclusively,
     * waiting for the writers in flight and holding back new ones (PostgreSQL queues later requests behind a
     * waiting one, so it is not starved). LOCK TABLE and SET are not queries: the transaction's snapshot is
     * taken at its first query, after the lock is granted, so it sees every writer it waited for as committed
     * and, with no concurrent writer, cannot be the pivot of a cycle. The lock is the transaction's, gone at
     * its commit or rollback (or with the session); the gate is a table, so the mounts of other machines step
     * aside too. Not final: a test makes every write transaction try to run alone.
     */
    static volatile int aloneAfter = 3;
    /**
     * The gate is a table of its own (schema version 4) that no query reads: an exclusive request waits for
     * every holder of any lock on its table, and PostgreSQL queues every later request behind it, so on
     * fs_meta (schema version 3) an application idle in a transaction after reading fs_meta, or another
     * mount reading it at mount time, held back every writer of every mount until the socket timeout (60 s,
     * EIO). Only tools that lock every table (pg_dump) still hold it, hence {@link #GATE_ALONE}'s timeout.
     */
    private static final String[] GATE_SHARED = {"LOCK TABLE fs_gate IN ACCESS SHARE MODE"};
    /**
     * Bounded: while it waits, every writer of every mount waits behind it. 2 s is far beyond a writer in
     * flight (milliseconds) and below the pool's 5 s connectionTimeout, so reads queued for a connection do
     * not fail meanwhile. The timeout is set back to the session's value after the lock, so that the work's
     * own waits (on rows an application holds) are what they always were. Neither SET nor LOCK takes a
     * snapshot.
     */
    private static final String[] GATE_ALONE = {
        "SET LOCAL lock_timeout = '2s'",
        "LOCK TABLE fs_gate IN ACCESS EXCLUSIVE MODE",
        "SET LOCAL lock_timeout TO DEFAULT"
    };
    /** How long an operation keeps trying to reach a database that went away before it answers EIO. */
    private static final long RECONNECT_NANOS = 10_000_000_000L;

    final Dialect dialect;
    final String url;
    final long session;
    private final HikariDataSource writer;
    private final HikariDataSource reader;
    final int chunkSize;
    /** Room held back on the SQLite file's disk for operations that free space (null on PostgreSQL). */
    private final Reserve reserve;
    private final java.util.concurrent.atomic.AtomicLong restarts = new java.util.concurrent.atomic.AtomicLong();
    /** PostgreSQL's start time when last looked at (guarded by this). */
    private long serverStart;

    Database(String url, int readers, int chunkSizeForNew, long session) {
        this.url = url;
        this.dialect = Dialect.of(url);
        this.session = session;
        HikariDataSource w = null, r = null;
        try {
            if (dialect == Dialect.SQLITE) {
                w = pool(url, 1, "writer", true);
                try (Connection c = w.getConnection()) {
                    chunkSize = Schema.migrate(c, dialect, chunkSizeForNew);
                }
                r = pool(url, readers, "reader", true);
            } else {
                w = pool(url, readers + 2, "pg", false);
                try (Connection c = w.getConnection()) {
                    chunkSize = Schema.migrate(c, dialect, chunkSizeForNew);
                }
                r = w;
            }
        } catch (RuntimeException | SQLException e) {
            if (r != null && r != w) r.close();
            if (w != null) w.close();
            throw Errors.atMount(url, e);
        }
        this.writer = w;
        this.reader = r;
        if (dialect == Dialect.SQLITE) {
            reserve = new Reserve(Space.sqliteFile(url));
            reserve.take();
        } else {
            reserve = null;
            serverStart = read(c -> {
                try (Statement s = c.createStatement()) {
                    return serverStart(s);
                }
            });
        }
    }

    private HikariDataSource pool(String url, int size, String name, boolean autoCommit) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setPoolName("sqlfs-" + name);
        cfg.setMaximumPoolSize(size);
        cfg.setMinimumIdle(Math.min(size, 2));
        cfg.setAutoCommit(autoCommit);
        // a caller waits at most this long for a connection, then EIO. PostgreSQL: the server may be gone, so
        // short. SQLite: the file is local and waiting is only queueing behind the one writer, which under a
        // burst of writes on a loaded machine took more than 5 s (a fio verify job got EIO): bounded, but long
        cfg.setConnectionTimeout(dialect == Dialect.SQLITE ? 60_000 : 5_000);
        cfg.setValidationTimeout(2_000);
        cfg.setInitializationFailTimeout(1); // fail at mount, with the cause, if the database cannot be reached
        Properties p = new Properties();
        if (dialect == Dialect.SQLITE) {
            p.setProperty("journal_mode", "WAL");
            p.setProperty("synchronous", "NORMAL");
            p.setProperty("foreign_keys", "true");
            p.setProperty("busy_timeout", "10000");
            p.setProperty("cache_size", "-16384");
            // reads of file data walk a blob's overflow pages: mapped, they are memory reads instead of one
            // pread per 4 KiB page (the address space is reserved, not memory; pages in the WAL are still read)
            p.setProperty("mmap_size", String.valueOf(1L << 30));
            p.setProperty("temp_store", "MEMORY");
        } else {
            p.setProperty("connectTimeout", "5");
            p.setProperty("socketTimeout", "60");
            p.setProperty("tcpKeepAlive", "true");
            p.setProperty("ApplicationName", "ringfuse-sqlfs");
            cfg.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
            // startup options, not an init statement: an init statement would run inside the connection's
            // first transaction and fix its snapshot at the time the pool opened the connection
            p.setProperty("options", "-c ringfuse.origin=" + session + " -c synchronous_commit=off");
        }
        cfg.setDataSourceProperties(p);
        return new HikariDataSource(cfg);
    }

    <T> T write(Work<T> work) {
        return run(writer, work, true);
    }

    /**
     * A write that frees space (unlink, rmdir, truncate, rename over a file): on a full disk it gets the
     * reserve's room, and the reserve is taken again once there is room.
     */
    <T> T freeing(Work<T> work) {
        try {
            return run(writer, work, true);
        } catch (dev.ringfuse.FuseException e) {
            if (e.errno() != dev.ringfuse.Errno.ENOSPC || reserve == null || !reserve.release()) throw e;
        }
        T r;
        try {
            r = run(writer, work, true);
        } catch (dev.ringfuse.FuseException e) {
            if (e.errno() != dev.ringfuse.Errno.ENOSPC) throw e;
            checkpoint();
            r = run(writer, work, true);
        }
        checkpoint();
        reserve.take();
        return r;
    }

    /** Copies the WAL into the database and empties it (its room goes back to the disk). */
    private void checkpoint() {
        try (Connection c = writer.getConnection(); Statement s = c.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch (SQLException ignored) {
            // a reader still holds old pages: the WAL is reused from its start later anyway
        }
    }

    <T> T read(Work<T> work) {
        return run(reader, work, false);
    }

    /**
     * A read that is a single statement (getattr, lookup): atomic by itself, so on SQLite it runs without
     * BEGIN and COMMIT, which would double its cost; on PostgreSQL the same as {@link #read}.
     */
    <T> T query(Work<T> work) {
        if (dialect != Dialect.SQLITE) return read(work);
        try (Connection c = reader.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw Errors.map(e);
        }
    }

    private <T> T run(HikariDataSource pool, Work<T> work, boolean write) {
        long start = System.nanoTime();
        int sharedLeft = aloneAfter; // tries with the shared gate before one that runs alone
        for (int attempt = 0; ; attempt++) {
            boolean alone = write && sharedLeft <= 0;
            try (Connection c = pool.getConnection()) {
                if (dialect == Dialect.SQLITE) return sqlite(c, work, write);
                if (!write) return postgres(c, work);
                return postgres(c, work, alone ? GATE_ALONE : GATE_SHARED);
            } catch (CommitFailed e) {
                throw Errors.map(e.cause); // it may or may not have committed: never run it twice
            } catch (GateBusy e) {
                // the work has not run. Someone else holds the gate (pg_dump locks every table): go back to
                // the shared gate, which such a holder does not block, before trying to run alone again
                if (attempt >= RETRIES) throw Errors.map(e);
                sharedLeft = Math.max(1, aloneAfter);
                backoff(attempt);
            } catch (SQLException e) {
                boolean reconnect = Errors.connectionLost(e) && System.nanoTime() - start < RECONNECT_NANOS;
                if ((Errors.retryable(e) || reconnect) && attempt < RETRIES) {
                    if (!alone) sharedLeft--;
                    backoff(attempt);
                    continue;
                }
                throw Errors.map(e);
            }
        }
    }

    /** The gate was not granted within its lock_timeout; the transaction is rolled back, its work not run. */
    private static final class GateBusy extends SQLException {
        GateBusy(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause);
        }
    }

    /** A failed COMMIT, whose outcome is unknown: not retried. */
    private static final class CommitFailed extends SQLException {
        final SQLException cause;

        CommitFailed(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause);
            this.cause = cause;
        }
    }

    private static <T> T sqlite(Connection c, Work<T> work, boolean write) throws SQLException {
        Sql.exec(c, write ? "BEGIN IMMEDIATE" : "BEGIN");
        try {
            if (write) Sql.exec(c, "UPDATE fs_quiet SET on_ = 1");
            T r = work.run(c);
            if (write) Sql.exec(c, "UPDATE fs_quiet SET on_ = 0");
            Sql.exec(c, "COMMIT");
            return r;
        } catch (SQLException | RuntimeException | Error e) {
            rollback(c);
            throw e;
        }
    }

    private static <T> T postgres(Connection c, Work<T> work, String... gate) throws SQLException {
        try {
            if (gate.length > 0) {
                try (Statement s = c.createStatement()) {
                    for (String g : gate) s.execute(g);
                } catch (SQLException e) {
                    throw "55P03".equals(e.getSQLState()) ? new GateBusy(e) : e; // lock_not_available
                }
            }
            T r = work.run(c);
            try {
                c.commit();
            } catch (SQLException e) {
                throw Errors.retryable(e) ? e : new CommitFailed(e); // a serialization failure at commit: nothing done
            }
            return r;
        } catch (SQLException | RuntimeException | Error e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // a broken connection: the pool drops it
            }
            throw e;
        }
    }

    private static void rollback(Connection c) {
        try {
            Sql.exec(c, "ROLLBACK");
        } catch (SQLException ignored) {
            // SQLite rolls back by itself after some errors (SQLITE_FULL): nothing left to undo
        }
    }

    private static void backoff(int attempt) {
        try {
            Thread.sleep(Math.min(50, 1 + attempt * 2L) + (long) (Math.random() * 5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FuseException(dev.ringfuse.Errno.EINTR);
        }
    }

    /**
     * Makes every committed transaction durable. SQLite: a marker transaction committed with
     * synchronous=FULL, whose fsync of the WAL also covers every earlier frame (ordinary commits run with
     * NORMAL and are durable only at the next checkpoint). PostgreSQL: a transaction with
     * synchronous_commit on that writes a row (of this session's own), so its commit waits for the WAL to be
     * flushed up to its own commit record, past every earlier asynchronous commit.
     */
    void durable() {
        if (dialect == Dialect.SQLITE) {
            for (int attempt = 0; ; attempt++) {
                try (Connection c = writer.getConnection(); Statement s = c.createStatement()) {
                    s.execute("PRAGMA synchronous = FULL");
                    try {
                        s.execute("BEGIN IMMEDIATE");
                        try {
                            s.executeUpdate("UPDATE fs_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'fsyncs'");
                            s.execute("COMMIT");
                        } catch (SQLException e) {
                            rollback(c);
                            throw e;
                        }
                    } finally {
                        s.execute("PRAGMA synchronous = NORMAL");
                    }
                    return;
                } catch (SQLException e) {
                    if (Errors.retryable(e) && attempt < RETRIES) {
                        backoff(attempt);
                        continue;
                    }
                    throw Errors.map(e);
                }
            }
        }
        long started = write(c -> {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL synchronous_commit TO on");
                // the commit waits for the flush only if the transaction wrote WAL before its commit record
                // (txid_current() alone does not): a row of this session's own, so mounts never conflict
                s.executeUpdate("INSERT INTO fs_meta (key, value) VALUES ('fsync-" + session + "', '1')"
                        + " ON CONFLICT (key) DO UPDATE SET value = (fs_meta.value::bigint + 1)::text");
                return serverStart(s);
            }
        });
        synchronized (this) {
            if (started != serverStart) {
                serverStart = started;
                restarts.incrementAndGet();
                LOG.log(System.Logger.Level.WARNING, "the database server restarted: changes not yet fsynced may be lost");
            }
        }
    }

    /**
     * How many server restarts this mount has noticed (PostgreSQL; always 0 on SQLite). An asynchronous
     * commit made before a restart may be lost with the server's unflushed WAL, so a file written before
     * the restart count last changed must not have its fsync acknowledged (see SqlFileOps.fsync).
     */
    long restarts() {
        return restarts.get();
    }

    /** The server's start time (microseconds), which changes with every restart or crash recovery. */
    private static long serverStart(Statement s) throws SQLException {
        try (java.sql.ResultSet rs = s.executeQuery("SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000000)::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Hands a connection of the writer pool to {@code work} outside any transaction (maintenance). */
    <T> T raw(Work<T> work) {
        try (Connection c = writer.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw Errors.map(e);
        }
    }

    @Override
    public void close() {
        if (dialect == Dialect.POSTGRES) {
            try {
                write(c -> {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("DELETE FROM fs_meta WHERE key = 'fsync-" + session + "'");
                    }
                    return null;
                });
            } catch (RuntimeException ignored) {
                // a row of a few bytes stays behind
            }
        }
        if (dialect == Dialect.SQLITE) {
            try (Connection c = writer.getConnection(); Statement s = c.createStatement()) {
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            } catch (SQLException | RuntimeException ignored) {
                // best effort: the WAL is replayed on the next open
            }
        }
        if (reader != writer) reader.close();
        writer.close();
    }
}
