package dev.ringfuse.sqlfs;

import dev.ringfuse.lowlevel.Notifier;
import java.io.IOException;
import java.util.function.LongPredicate;

/**
 * Tells the kernel about changes made by other writers (applications through SQL, other mounts) so that
 * its caches of names, attributes and pages do not go stale: {@link Notifier#invalEntry} for a name that
 * appeared, went or moved, {@link Notifier#invalInode} for a node whose attributes or bytes changed. Runs
 * on its own thread (never inside a request, as the Notifier's deadlock rule demands).
 */
abstract class ChangeFeed implements AutoCloseable {
    static final System.Logger LOG = System.getLogger("dev.ringfuse.sqlfs");

    final Database db;
    final LongPredicate known;
    volatile Notifier notifier;
    volatile boolean closed;
    private Thread thread;

    ChangeFeed(Database db, LongPredicate known) {
        this.db = db;
        this.known = known;
    }

    static ChangeFeed of(Database db, LongPredicate known, SessionGuard guard,
                         java.util.function.Supplier<java.util.Set<Long>> all) {
        return db.dialect == Dialect.SQLITE ? new SqliteChangeFeed(db, known)
                : new PostgresChangeFeed(db, known, guard, all);
    }

    void start(Notifier n) {
        notifier = n;
        if (Boolean.getBoolean("ringfuse.sqlfs.feed.off")) {
            // tests and diagnosis: what holds without the announcements (close-to-open, the timeouts)
            System.getLogger("dev.ringfuse.sqlfs").log(System.Logger.Level.WARNING,
                    "change feed off (ringfuse.sqlfs.feed.off): changes made elsewhere show only at open or after the cache timeouts");
            return;
        }
        thread = Thread.ofPlatform().daemon().name("sqlfs-changes").start(this::loop);
    }

    abstract void loop();

    /** Invalidates a name in {@code parent}, and the directory's attributes. */
    void entryChanged(long parent, byte[] name) {
        try {
            notifier.invalEntry(parent, dev.ringfuse.FileNames.decode(name));
            if (known.test(parent)) notifier.invalInode(parent, 0, 0);
        } catch (IOException e) {
            gone(e);
        }
    }

    /** Invalidates a node's attributes and cached pages. */
    void inodeChanged(long ino) {
        if (!known.test(ino)) return;
        try {
            notifier.invalInode(ino, 0, 0);
        } catch (IOException e) {
            gone(e);
        }
    }

    private void gone(IOException e) {
        if (!closed) LOG.log(System.Logger.Level.DEBUG, "invalidation failed: " + e.getMessage());
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
