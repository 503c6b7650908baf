package dev.ringfuse.sqlfs;

/** The database cannot be served (unreachable, refused, foreign, too new, read-only): one line for the user. */
public final class SqlFsException extends RuntimeException {
    public SqlFsException(String message) {
        super(message);
    }

    public SqlFsException(String message, Throwable cause) {
        super(message, cause);
    }
}
