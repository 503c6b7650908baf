package dev.ringfuse.sqlfs;

import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * SQLite has no notifications across connections: triggers record other writers' changes in table
 * {@code changes} (the filesystem's own transactions are quiet), and this feed polls it every
 * {@link #PERIOD_MS} ms, invalidates, and deletes what it handled.
 */
final class SqliteChangeFeed extends ChangeFeed {
    static final long PERIOD_MS = 200;

    private record Change(long seq, long ino, long parent, byte[] name) {}

    SqliteChangeFeed(Database db, LongPredicate known) {
        super(db, known);
    }

    @Override
    void loop() {
        while (!closed) {
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            }
            try {
                poll();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "change feed: " + e.getMessage());
            }
        }
    }

    private void poll() {
        List<Change> changes = db.read(c -> {
            List<Change> out = new ArrayList<>();
            try (Sql.Stmt ps = Sql.prepare(c, 
                    "SELECT seq, ino, parent, name FROM changes ORDER BY seq LIMIT 1000");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Change(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getBytes(4)));
            }
            return out;
        });
        if (changes.isEmpty()) return;
        for (Change ch : changes) {
            if (ch.ino() != 0) inodeChanged(ch.ino());
            if (ch.name() != null) entryChanged(ch.parent(), ch.name());
        }
        long last = changes.getLast().seq();
        db.write(c -> {
            try (Sql.Stmt ps = Sql.prepare(c, "DELETE FROM changes WHERE seq <= ?")) {
                ps.setLong(1, last);
                ps.executeUpdate();
            }
            return null;
        });
    }
}
