package dev.ringfuse.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * {@code mount --jfr FILE}: a recording with the JDK's default profile plus every dev.ringfuse event (the
 * per-request ones are off unless asked for), written to FILE when the mount ends, also on Ctrl-C.
 */
final class JfrFile implements AutoCloseable {
    private static final String[] EVENTS = {"dev.ringfuse.Mount", "dev.ringfuse.Init", "dev.ringfuse.Request",
            "dev.ringfuse.Unmount", "dev.ringfuse.uring.Submit"};

    private final Recording recording;
    private boolean closed;

    private JfrFile(Recording recording) {
        this.recording = recording;
    }

    static JfrFile start(Path file) throws IOException {
        Recording r;
        try {
            r = new Recording(Configuration.getConfiguration("default"));
        } catch (ParseException e) {
            throw new IOException("the JDK's default JFR profile does not parse: " + e.getMessage(), e);
        }
        for (String e : EVENTS) r.enable(e).withoutThreshold();
        r.setName("ringfuse");
        r.setToDisk(true);
        r.setDestination(file.toAbsolutePath());
        r.start();
        return new JfrFile(r);
    }

    /** Stops the recording, which writes the file. Once; from the main thread or the shutdown hook. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        recording.stop();
        recording.close();
    }
}
