package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.Reply;
import dev.ringfuse.lowlevel.RequestContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * fcntl record locks and flock locks kept in table {@code locks}, so that they hold across mounts
 * (PostgreSQL). A lock belongs to (session, owner): the kernel's lock owner for fcntl, the open file for
 * flock. Taking a lock is one SERIALIZABLE transaction that checks for a conflicting lock of another owner
 * and writes its own rows, so two mounts racing for one range cannot both win (the loser's transaction
 * fails serialization and is retried). A waiting lock (F_SETLKW, flock without LOCK_NB) polls on a virtual
 * thread until granted or interrupted; a lock cycle across mounts is not detected (no EDEADLK).
 */
final class Locks {
    static final int LOCK_SH = 1, LOCK_EX = 2, LOCK_NB = 4, LOCK_UN = 8;
    private static final long POLL_MS = 20;

    private final Database db;

    Locks(Database db) {
        this.db = db;
    }

    /** The first lock of another owner that conflicts with {@code lock}, or null. */
    FileLock conflict(long ino, long owner, char kind, FileLock lock) {
        return db.read(c -> conflict(c, ino, owner, kind, lock));
    }

    private FileLock conflict(Connection c, long ino, long owner, char kind, FileLock lock) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT start_, end_, type, pid FROM locks WHERE ino = ? AND kind = ?"
                + " AND NOT (session = ? AND owner = ?) AND start_ <= ? AND end_ >= ? AND (type = 1 OR ? = 1) LIMIT 1")) {
            ps.setLong(1, ino);
            ps.setString(2, String.valueOf(kind));
            ps.setLong(3, db.session);
            ps.setLong(4, owner);
            ps.setLong(5, lock.end());
            ps.setLong(6, lock.start());
            ps.setInt(7, lock.type());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new FileLock(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getInt(4)) : null;
            }
        }
    }

    /** Sets or clears {@code lock} for {@code owner}; true if done, false if another owner's lock is in the way. */
    boolean trySet(long ino, long owner, char kind, FileLock lock) {
        return db.write(c -> {
            if (lock.type() != FileLock.F_UNLCK && conflict(c, ino, owner, kind, lock) != null) return false;
            clear(c, ino, owner, kind, lock.start(), lock.end());
            if (lock.type() != FileLock.F_UNLCK) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO locks (ino, session, owner, kind, type, start_, end_, pid)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                    ps.setLong(1, ino);
                    ps.setLong(2, db.session);
                    ps.setLong(3, owner);
                    ps.setString(4, String.valueOf(kind));
                    ps.setInt(5, lock.type());
                    ps.setLong(6, lock.start());
                    ps.setLong(7, lock.end());
                    ps.setInt(8, lock.pid());
                    ps.executeUpdate();
                }
            }
            return true;
        });
    }

    /** Removes the owner's locks over {@code start..end}, keeping the parts outside (a lock may split in two). */
    private void clear(Connection c, long ino, long owner, char kind, long start, long end) throws SQLException {
        String mine = " WHERE ino = ? AND session = ? AND owner = ? AND kind = ? AND start_ <= ? AND end_ >= ?";
        if (end < Long.MAX_VALUE) { // the part after end survives
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO locks (ino, session, owner, kind, type, start_, end_, pid)"
                    + " SELECT ino, session, owner, kind, type, ?, end_, pid FROM locks" + mine + " AND end_ > ?")) {
                bind(ps, 1, end + 1, ino, owner, kind, start, end);
                ps.setLong(8, end);
                ps.executeUpdate();
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE locks SET end_ = ?" + mine + " AND start_ < ?")) {
            bind(ps, 1, start - 1, ino, owner, kind, start, end); // the part before start survives
            ps.setLong(8, start);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM locks WHERE ino = ? AND session = ? AND owner = ?"
                + " AND kind = ? AND start_ >= ? AND end_ <= ?")) {
            ps.setLong(1, ino);
            ps.setLong(2, db.session);
            ps.setLong(3, owner);
            ps.setString(4, String.valueOf(kind));
            ps.setLong(5, start);
            ps.setLong(6, end);
            ps.executeUpdate();
        }
        // a lock that started inside the range and ran past it: now starts after the range
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM locks WHERE ino = ? AND session = ? AND owner = ?"
                + " AND kind = ? AND start_ >= ? AND start_ <= ? AND end_ > ?")) {
            ps.setLong(1, ino);
            ps.setLong(2, db.session);
            ps.setLong(3, owner);
            ps.setString(4, String.valueOf(kind));
            ps.setLong(5, start);
            ps.setLong(6, end);
            ps.setLong(7, end);
            ps.executeUpdate();
        }
    }

    private void bind(PreparedStatement ps, int first, long value, long ino, long owner, char kind, long start, long end)
            throws SQLException {
        ps.setLong(first, value);
        ps.setLong(first + 1, ino);
        ps.setLong(first + 2, db.session);
        ps.setLong(first + 3, owner);
        ps.setString(first + 4, String.valueOf(kind));
        ps.setLong(first + 5, end);
        ps.setLong(first + 6, start);
    }

    /** Sets the lock now, or (if {@code sleep}) on a virtual thread once it is free; completes {@code done}. */
    void set(RequestContext ctx, long ino, long owner, char kind, FileLock lock, boolean sleep, Reply reply, Runnable ok) {
        if (trySet(ino, owner, kind, lock)) {
            ok.run();
            return;
        }
        if (!sleep) throw new FuseException(Errno.EAGAIN);
        Thread.ofVirtual().name("sqlfs-lockwait").start(() -> {
            try {
                while (!trySet(ino, owner, kind, lock)) {
                    if (ctx.interrupted()) {
                        reply.error(Errno.EINTR);
                        return;
                    }
                    Thread.sleep(POLL_MS);
                }
                ok.run();
            } catch (FuseException e) {
                reply.error(e.errno());
            } catch (InterruptedException e) {
                reply.error(Errno.EINTR);
            } catch (RuntimeException e) {
                reply.error(Errno.EIO);
            }
        });
    }

    /** Drops every lock of {@code owner} of one kind on {@code ino} (close, last release). */
    void releaseAll(long ino, long owner, char kind) {
        db.write(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM locks WHERE ino = ? AND session = ? AND owner = ? AND kind = ?")) {
                ps.setLong(1, ino);
                ps.setLong(2, db.session);
                ps.setLong(3, owner);
                ps.setString(4, String.valueOf(kind));
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Drops every lock of this mount (unmount). */
    void releaseSession() {
        db.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM locks WHERE session = ?")) {
                ps.setLong(1, db.session);
                ps.executeUpdate();
            }
            return null;
        });
    }
}
