package dev.ringfuse.pool.admin;

import java.io.PrintStream;

/** A one-line progress bar on a terminal stream, redrawn at most ten times a second. */
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
        int pct = (int) Math.min(100, done * 100 / total);
        int fill = pct * 30 / 100;
        err.print("\r[" + "#".repeat(fill) + " ".repeat(30 - fill) + "] " + pct + "% " + PoolAdmin.human(done));
        err.flush();
    }

    void done() {
        draw(total);
        err.println();
    }
}
