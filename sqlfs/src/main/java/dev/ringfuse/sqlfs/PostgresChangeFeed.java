package dev.ringfuse.sqlfs;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.function.LongPredicate;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PostgreSQL: triggers NOTIFY channel {@code ringfuse} at commit with {@code "origin e parent namehex"} or
 * {@code "origin i ino"}; this feed LISTENs on a connection of its own and skips its own session's
 * messages. After a lost connection it reconnects and invalidates every node the kernel knows, since
 * notifications sent meanwhile are lost.
 */
final class PostgresChangeFeed extends ChangeFeed {
    private final SessionGuard guard;
    private final java.util.function.Supplier<java.util.Set<Long>> all;

    PostgresChangeFeed(Database db, LongPredicate known, SessionGuard guard, java.util.function.Supplier<java.util.Set<Long>> all) {
        super(db, known);
        this.guard = guard;
        this.all = all;
    }

    @Override
    void loop() {
        String me = Long.toString(db.session);
        boolean first = true;
        while (!closed) {
            try (Connection c = DriverManager.getConnection(db.url)) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + PostgresSchema.CHANNEL);
                }
                if (!first) {
                    guard.reconnect();
                    for (long ino : all.get()) inodeChanged(ino);
                }
                first = false;
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] ns = pg.getNotifications(500);
                    if (ns == null) continue;
                    for (PGNotification n : ns) handle(n.getParameter(), me);
                }
            } catch (SQLException e) {
                if (closed) return;
                LOG.log(System.Logger.Level.DEBUG, "change feed reconnecting: " + e.getMessage());
                try {
                    Thread.sleep(500);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void handle(String payload, String me) {
        String[] f = payload.split(" ", -1);
        if (f.length < 3 || f[0].equals(me)) return;
        try {
            if (f[1].equals("i")) inodeChanged(Long.parseLong(f[2]));
            else if (f[1].equals("e") && f.length == 4) entryChanged(Long.parseLong(f[2]), HexFormat.of().parseHex(f[3]));
        } catch (NumberFormatException e) {
            LOG.log(System.Logger.Level.DEBUG, "bad notification " + payload);
        }
    }
}
