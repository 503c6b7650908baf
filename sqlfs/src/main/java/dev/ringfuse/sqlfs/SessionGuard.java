package dev.ringfuse.sqlfs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Who else serves the database, so that orphans (open files without names) and locks of crashed mounts
 * are cleaned up at mount without touching those of live ones.
 *
 * <p>SQLite: one mount per database file, held by a lock on {@code FILE-ringfuse.lock} beside it; a second
 * mount is refused, and every orphan found at mount belongs to a dead mount. PostgreSQL: each mount holds
 * a session-level advisory lock on its session id on a connection of its own; a session whose lock can be
 * taken is dead, and its orphans and locks go.
 */
final class SessionGuard implements AutoCloseable {
    private final String url;
    private final long session;
    private final FileChannel lockFile;
    private final FileLock fileLock;
    private Connection pg;

    private SessionGuard(String url, long session, FileChannel lockFile, FileLock fileLock, Connection pg) {
        this.url = url;
        this.session = session;
        this.lockFile = lockFile;
        this.fileLock = fileLock;
        this.pg = pg;
    }

    static long newSessionId() {
        return new SecureRandom().nextLong() & Long.MAX_VALUE | 1;
    }

    static SessionGuard acquire(String url, long session) {
        if (Dialect.of(url) == Dialect.SQLITE) {
            Path db = Path.of(url.substring("jdbc:sqlite:".length()).replaceFirst("\\?.*", "")).toAbsolutePath();
            Path lock = db.resolveSibling(db.getFileName() + "-ringfuse.lock");
            FileChannel ch;
            try {
                ch = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new SqlFsException("cannot open " + db + " for writing: " + Errors.oneLine(e)
                        + " (" + e.getClass().getSimpleName() + ")", e);
            }
            try {
                FileLock l = ch.tryLock();
                if (l == null) throw new OverlappingFileLockException();
                return new SessionGuard(url, session, ch, l, null);
            } catch (OverlappingFileLockException | IOException e) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing to keep
                }
                throw new SqlFsException(db + " is already mounted by another ringfuse (one mount per SQLite file)");
            }
        }
        try {
            Connection c = DriverManager.getConnection(url);
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
                ps.setLong(1, session);
                ps.execute();
            }
            return new SessionGuard(url, session, null, null, c);
        } catch (SQLException e) {
            throw Errors.atMount(url, e);
        }
    }

    /**
     * Deletes the orphans, open files, locks and lock waits of mounts that are gone (at mount, and on
     * PostgreSQL every half minute, so that a crashed mount's files do not stay forever while others run).
     */
    synchronized void cleanOrphans(Database db) {
        if (db.dialect == Dialect.SQLITE) {
            db.write(c -> {
                try (PreparedStatement ps = c.prepareStatement(
                        "DELETE FROM inodes WHERE nlink = 0 AND ino IN (SELECT ino FROM orphans)")) {
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM orphans")) {
                    ps.executeUpdate();
                }
                return null;
            });
            return;
        }
        List<Long> sessions = db.read(c -> {
            List<Long> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT session FROM orphans UNION SELECT session FROM locks UNION SELECT session FROM open_files"
                    + " UNION SELECT session FROM lock_waits");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(rs.getLong(1));
            }
            return out;
        });
        for (long s : sessions) {
            if (s == session || !tryLock(s)) continue;
            try {
                db.write(c -> {
                    for (String table : new String[] {"locks", "lock_waits"}) {
                        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE session = ?")) {
                            ps.setLong(1, s);
                            ps.executeUpdate();
                        }
                    }
                    List<Long> inos = new ArrayList<>();
                    for (String table : new String[] {"orphans", "open_files"}) {
                        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE session = ?"
                                + " RETURNING ino")) {
                            ps.setLong(1, s);
                            try (ResultSet rs = ps.executeQuery()) {
                                while (rs.next()) inos.add(rs.getLong(1));
                            }
                        }
                    }
                    for (long ino : inos) Store.deleteIfUnreferenced(c, ino); // this mount's rows count too
                    return null;
                });
            } finally {
                unlock(s);
            }
        }
    }

    private boolean tryLock(long s) {
        try (PreparedStatement ps = pg.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            ps.setLong(1, s);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException e) {
            return false;
        }
    }

    private void unlock(long s) {
        try (PreparedStatement ps = pg.prepareStatement("SELECT pg_advisory_unlock(?)")) {
            ps.setLong(1, s);
            ps.execute();
        } catch (SQLException ignored) {
            // the lock dies with the connection
        }
    }

    /**
     * PostgreSQL: takes the session lock again on a new connection if the old one broke (server restart);
     * called by the change feed after it reconnected.
     */
    synchronized void reconnect() {
        if (pg == null) return;
        try {
            if (pg.isValid(2)) return;
            pg.close();
        } catch (SQLException ignored) {
            // replaced below
        }
        try {
            Connection c = DriverManager.getConnection(url);
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
                ps.setLong(1, session);
                ps.execute();
            }
            pg = c;
        } catch (SQLException ignored) {
            // tried again at the next reconnect
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (fileLock != null) fileLock.release();
            if (lockFile != null) lockFile.close();
        } catch (IOException ignored) {
            // released by the process's exit anyway
        }
        if (pg != null) {
            try {
                pg.close();
            } catch (SQLException ignored) {
                // the server drops the advisory lock with the session
            }
        }
    }
}
