package dev.ringfuse.sys;

import dev.ringfuse.Errno;
import java.io.IOException;

/** A libc call failed with {@code errno}. */
public final class ErrnoException extends IOException {
    private final int errno;
    private final String call;

    public ErrnoException(String call, int errno) {
        super(call + ": " + Errno.describe(errno));
        this.errno = errno;
        this.call = call;
    }

    /** The positive errno value. */
    public int errno() { return errno; }

    /** The call that failed, with its key argument. */
    public String call() { return call; }
}
