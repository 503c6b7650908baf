package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Database errors as errnos for callers, and as one-line messages at mount time. */
final class Errors {
    private Errors() {}

    private static final System.Logger LOG = System.getLogger("dev.ringfuse.sqlfs");

    /** Serialization failures and deadlocks (PostgreSQL): the transaction is run again. */
    static boolean retryable(SQLException e) {
        String s = e.getSQLState();
        return "40001".equals(s) || "40P01".equals(s);
    }

    /**
     * The connection broke (server restart, network) before the transaction committed: safe to run the
     * transaction again on another connection (the pool drops the broken one).
     */
    static boolean connectionLost(SQLException e) {
        String s = e.getSQLState();
        return s != null && (s.startsWith("08") || s.equals("57P01") || s.equals("57P02") || s.equals("57P03"));
    }

    /**
     * Disk full is ENOSPC; a read-only database EROFS; a unique-key race EEXIST; everything else (lost
     * connection, server restart, timeout) EIO, logged once per occurrence.
     */
    static FuseException map(SQLException e) {
        if (e instanceof SQLiteException se) {
            int primary = se.getResultCode().code & 0xff;
            if (primary == SQLiteErrorCode.SQLITE_FULL.code) return new FuseException(Errno.ENOSPC);
            if (primary == SQLiteErrorCode.SQLITE_READONLY.code) return new FuseException(Errno.EROFS);
            if (primary == SQLiteErrorCode.SQLITE_CONSTRAINT.code && se.getMessage().contains("UNIQUE")) {
                return new FuseException(Errno.EEXIST);
            }
        }
        String state = e.getSQLState();
        if ("53100".equals(state)) return new FuseException(Errno.ENOSPC);
        if ("23505".equals(state)) return new FuseException(Errno.EEXIST);
        if ("25006".equals(state)) return new FuseException(Errno.EROFS);
        if (!(e instanceof SQLTransientConnectionException)) {
            LOG.log(System.Logger.Level.WARNING, "database error, answered EIO: " + oneLine(e));
        } else {
            LOG.log(System.Logger.Level.WARNING, "no database connection, answered EIO: " + oneLine(e));
        }
        return new FuseException(Errno.EIO);
    }

    /** Why the database at {@code url} cannot be mounted, as one line. */
    static SqlFsException atMount(String url, Throwable e) {
        if (e instanceof SqlFsException s) return s;
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String why = oneLine(root);
        if (root instanceof SQLiteException se) {
            int primary = se.getResultCode().code & 0xff;
            if (primary == SQLiteErrorCode.SQLITE_READONLY.code || primary == SQLiteErrorCode.SQLITE_CANTOPEN.code
                    || primary == SQLiteErrorCode.SQLITE_PERM.code) {
                return new SqlFsException("cannot open " + redact(url) + " for writing: " + why, e);
            }
            if (primary == SQLiteErrorCode.SQLITE_NOTADB.code) {
                return new SqlFsException(redact(url) + " is not an SQLite database: " + why, e);
            }
        }
        return new SqlFsException("cannot use database " + redact(url) + ": " + why, e);
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.replaceAll("\\s*\\R\\s*", " ").trim();
    }

    /** A JDBC URL without its password. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
