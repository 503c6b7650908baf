package dev.ringfuse;

import java.io.IOException;

/** A mount could not be made; the message says why and what to do. */
public class MountException extends IOException {
    private final int errno;

    /**
     * @param message what failed and what to do about it, for the user
     * @param errno   the errno the kernel or fusermount3 gave, or 0
     */
    public MountException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /**
     * @param message what failed and what to do about it, for the user
     * @param cause   the failure underneath (errno is then 0)
     */
    public MountException(String message, Throwable cause) {
        super(message, cause);
        this.errno = 0;
    }

    /** The errno behind the failure, or 0. */
    public int errno() { return errno; }
}
