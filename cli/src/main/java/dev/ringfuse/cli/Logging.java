package dev.ringfuse.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The command line's logging: the library logs through System.Logger (java.util.logging here); the CLI
 * shows warnings and errors on stderr, one line each, and with {@code -v} also the library's debug
 * messages and one trace line per request.
 */
final class Logging {
    private Logging() {}

    /** Held: java.util.logging keeps loggers only weakly, and a collected one forgets the level set on it. */
    private static final Logger LIBRARY = Logger.getLogger("dev.ringfuse");

    static void configure(boolean verbose) {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        ConsoleHandler h = new ConsoleHandler();
        h.setLevel(Level.ALL);
        h.setFormatter(new Formatter() {
            @Override
            public String format(LogRecord r) {
                String msg = formatMessage(r);
                String where = r.getLoggerName().equals("dev.ringfuse.request") ? "" : r.getLevel().getName().toLowerCase(java.util.Locale.ROOT) + ": ";
                StringBuilder b = new StringBuilder("ringfuse: ").append(where).append(msg).append('\n');
                if (r.getThrown() != null) {
                    java.io.StringWriter w = new java.io.StringWriter();
                    r.getThrown().printStackTrace(new java.io.PrintWriter(w));
                    b.append(w);
                }
                return b.toString();
            }
        });
        root.addHandler(h);
        root.setLevel(Level.WARNING);
        LIBRARY.setLevel(verbose ? Level.FINE : null);
    }
}
