package dev.ringfuse.testkit.internal;

import dev.ringfuse.Errno;
import java.io.IOException;

/** A libc call failed; carries the errno it set. */
public final class ErrnoException extends IOException {
    private final int errno;

    public ErrnoException(String call, int errno) {
        super(call + ": " + Errno.describe(errno) + " (errno " + errno + ")");
        this.errno = errno;
    }

    /** The raw errno. */
    public int errno() { return errno; }

    /** The errno as an enum row, or null if it has none. */
    public Errno error() { return Errno.of(errno); }
}
