package dev.ringfuse.sqlfs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.Reply;
import dev.ringfuse.lowlevel.RequestContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * fcntl record locks and flock locks kept in table {@code locks}, so that they hold across mounts
 * (PostgreSQL). A lock belongs to (session, owner): the kernel's lock owner for fcntl, the open file for
 * flock. Taking a lock is one SERIALIZABLE transaction that checks for a conflicting lock of another owner
 * and writes its own rows, so two mounts racing for one range cannot both win (the loser's transaction
 * fails serialization and is retried). A waiting lock (F_SETLKW, flock without LOCK_NB) polls on a virtual
 * thread until granted or interrupted, recorded in {@code lock_waits} so that a cycle of waits across
 * mounts is answered with EDEADLK (see {@link #set}).
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
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT start_, end_, type, pid FROM locks WHERE ino = ? AND kind = ?"
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

    private enum Outcome { SET, BLOCKED, DEADLOCK }

    /**
     * One try, one transaction. A waiting fcntl request ({@code waiting}) that is blocked records itself in
     * {@code lock_waits} on its first try (and is removed from it once set), after checking that waiting
     * would not close a cycle of owners each waiting for the next: that is EDEADLK, as the kernel answers
     * for local locks. SERIALIZABLE makes two requests that close a cycle together conflict: one is run again
     * and sees the other's wait. Later tries ({@code recorded}) only look whether the lock is free: their row
     * is in place, and a cycle formed later is found by the request that closes it, which reads that row
     * (as the kernel checks only when a request starts to wait).
     */
    private Outcome attempt(long ino, long owner, char kind, FileLock lock, boolean waiting, boolean recorded) {
        return db.write(c -> {
            if (lock.type() != FileLock.F_UNLCK && conflict(c, ino, owner, kind, lock) != null) {
                if (!waiting || kind != 'p' || recorded) return Outcome.BLOCKED;
                if (closesCycle(c, ino, owner, lock)) {
                    unwait(c, owner);
                    return Outcome.DEADLOCK;
                }
                unwait(c, owner);
                try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO lock_waits (session, owner, ino, type, start_, end_)"
                        + " VALUES (?, ?, ?, ?, ?, ?)")) {
                    ps.setLong(1, db.session);
                    ps.setLong(2, owner);
                    ps.setLong(3, ino);
                    ps.setInt(4, lock.type());
                    ps.setLong(5, lock.start());
                    ps.setLong(6, lock.end());
                    ps.executeUpdate();
                }
                return Outcome.BLOCKED;
            }
            if (waiting && kind == 'p') unwait(c, owner);
            clear(c, ino, owner, kind, lock.start(), lock.end());
            if (lock.type() != FileLock.F_UNLCK) {
                try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO locks (ino, session, owner, kind, type, start_, end_, pid)"
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
            return Outcome.SET;
        });
    }

    /** An owner: a mount's session and the kernel's lock owner there. */
    private record Owner(long session, long owner) {}

    /** The kernel gives up after this many steps along a chain of waiting owners; so do we. */
    private static final int MAX_DEADLOCK_STEPS = 10;

    /**
     * Whether {@code owner} waiting for {@code lock} would wait for itself: the owners holding what it
     * wants, the owners holding what those wait for, and so on, include it.
     */
    private boolean closesCycle(Connection c, long ino, long owner, FileLock lock) throws SQLException {
        Owner me = new Owner(db.session, owner);
        java.util.Set<Owner> seen = new java.util.HashSet<>();
        java.util.List<Owner> frontier = holders(c, ino, me, lock.type(), lock.start(), lock.end());
        for (int step = 0; step < MAX_DEADLOCK_STEPS && !frontier.isEmpty(); step++) {
            java.util.List<Owner> next = new java.util.ArrayList<>();
            for (Owner o : frontier) {
                if (o.equals(me)) return true;
                if (!seen.add(o)) continue;
                java.util.List<long[]> waits = new java.util.ArrayList<>();
                try (Sql.Stmt ps = Sql.prepare(c, "SELECT ino, type, start_, end_ FROM lock_waits"
                        + " WHERE session = ? AND owner = ?")) {
                    ps.setLong(1, o.session());
                    ps.setLong(2, o.owner());
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) waits.add(new long[] {rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)});
                    }
                }
                for (long[] w : waits) next.addAll(holders(c, w[0], o, (int) w[1], w[2], w[3]));
            }
            frontier = next;
        }
        return false;
    }

    /** The owners other than {@code not} whose fcntl locks on {@code ino} conflict with the range and type. */
    private static java.util.List<Owner> holders(Connection c, long ino, Owner not, int type, long start, long end)
            throws SQLException {
        java.util.List<Owner> out = new java.util.ArrayList<>();
        try (Sql.Stmt ps = Sql.prepare(c, "SELECT DISTINCT session, owner FROM locks WHERE ino = ? AND kind = 'p'"
                + " AND NOT (session = ? AND owner = ?) AND start_ <= ? AND end_ >= ? AND (type = 1 OR ? = 1)")) {
            ps.setLong(1, ino);
            ps.setLong(2, not.session());
            ps.setLong(3, not.owner());
            ps.setLong(4, end);
            ps.setLong(5, start);
            ps.setInt(6, type);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Owner(rs.getLong(1), rs.getLong(2)));
            }
        }
        return out;
    }

    private void unwait(Connection c, long owner) throws SQLException {
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM lock_waits WHERE session = ? AND owner = ?")) {
            ps.setLong(1, db.session);
            ps.setLong(2, owner);
            ps.executeUpdate();
        }
    }

    /** A wait that ended without its lock (interrupted, failed). */
    private void unwait(long owner) {
        try {
            db.write(c -> {
                unwait(c, owner);
                return null;
            });
        } catch (RuntimeException ignored) {
            // removed with the session's rows at unmount, or by the other mounts after a crash
        }
    }

    /** Removes the owner's locks over {@code start..end}, keeping the parts outside (a lock may split in two). */
    private void clear(Connection c, long ino, long owner, char kind, long start, long end) throws SQLException {
        String mine = " WHERE ino = ? AND session = ? AND owner = ? AND kind = ? AND start_ <= ? AND end_ >= ?";
        if (end < Long.MAX_VALUE) { // the part after end survives
            try (Sql.Stmt ps = Sql.prepare(c, "INSERT INTO locks (ino, session, owner, kind, type, start_, end_, pid)"
                    + " SELECT ino, session, owner, kind, type, ?, end_, pid FROM locks" + mine + " AND end_ > ?")) {
                bind(ps, 1, end + 1, ino, owner, kind, start, end);
                ps.setLong(8, end);
                ps.executeUpdate();
            }
        }
        try (Sql.Stmt ps = Sql.prepare(c, "UPDATE locks SET end_ = ?" + mine + " AND start_ < ?")) {
            bind(ps, 1, start - 1, ino, owner, kind, start, end); // the part before start survives
            ps.setLong(8, start);
            ps.executeUpdate();
        }
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM locks WHERE ino = ? AND session = ? AND owner = ?"
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
        try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM locks WHERE ino = ? AND session = ? AND owner = ?"
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

    private void bind(Sql.Stmt ps, int first, long value, long ino, long owner, char kind, long start, long end)
            throws SQLException {
        ps.setLong(first, value);
        ps.setLong(first + 1, ino);
        ps.setLong(first + 2, db.session);
        ps.setLong(first + 3, owner);
        ps.setString(first + 4, String.valueOf(kind));
        ps.setLong(first + 5, end);
        ps.setLong(first + 6, start);
    }

    /**
     * Sets the lock now, or (if {@code sleep}) on a virtual thread once it is free; completes {@code done}.
     * A waiting fcntl lock whose wait would close a cycle across owners (on any mount) fails with EDEADLK.
     */
    void set(RequestContext ctx, long ino, long owner, char kind, FileLock lock, boolean sleep, Reply reply, Runnable ok) {
        Outcome first = attempt(ino, owner, kind, lock, sleep, false);
        if (first == Outcome.SET) {
            ok.run();
            return;
        }
        if (first == Outcome.DEADLOCK) throw new FuseException(Errno.EDEADLK);
        if (!sleep) throw new FuseException(Errno.EAGAIN);
        Thread.ofVirtual().name("sqlfs-lockwait").start(() -> {
            boolean done = false;
            try {
                for (;;) {
                    if (ctx.interrupted()) {
                        reply.error(Errno.EINTR);
                        return;
                    }
                    Thread.sleep(POLL_MS);
                    // only the first try can answer DEADLOCK: a later one just looks whether the lock is free
                    if (attempt(ino, owner, kind, lock, true, true) == Outcome.SET) break;
                }
                done = true;
                ok.run();
            } catch (FuseException e) {
                reply.error(e.errno());
            } catch (InterruptedException e) {
                reply.error(Errno.EINTR);
            } catch (RuntimeException e) {
                reply.error(Errno.EIO);
            } finally {
                if (!done && kind == 'p') unwait(owner);
            }
        });
    }

    /** Drops every lock of {@code owner} of one kind on {@code ino} (close, last release). */
    void releaseAll(long ino, long owner, char kind) {
        db.write(c -> {
            try (Sql.Stmt ps = Sql.prepare(c, 
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
            for (String sql : new String[] {"DELETE FROM locks WHERE session = ?", "DELETE FROM lock_waits WHERE session = ?"}) {
                try (Sql.Stmt ps = Sql.prepare(c, sql)) {
                    ps.setLong(1, db.session);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }
}
