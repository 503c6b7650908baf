package dev.ringfuse.pool.admin;

import java.io.PrintStream;

/** A one-line progress bar on a terminal stream, redrawn at most ten times a second; a byte counter when the total is unknown (0). */
final class Progress {
    private final PrintStream err;
    private final long total;
    private long lastDraw;

    Progress(PrintStream err, long total) {
        this.err = err;
        this.total = total;
    }

    void update(long done) {
        long now = System.nanoTime();
        if (now - lastDraw < 100_000_000L) return;
        lastDraw = now;
        draw(done);
    }

    private void draw(long done) {
        if (total <= 0) { // size unknown: a counter
            err.print("\r" + PoolAdmin.human(done));
            err.flush();
            return;
        }
        int pct = (int) Math.min(100, done * 100 / total);
        int fill = pct * 30 / 100;
        err.print("\r[" + "#".repeat(fill) + " ".repeat(30 - fill) + "] " + pct + "% " + PoolAdmin.human(done));
        err.flush();
    }

    void done() {
        draw(total);
        err.println();
    }

    /** Ends the bar at {@code done} (a size known only at the end). */
    void done(long done) {
        draw(done);
        err.println();
    }
}
