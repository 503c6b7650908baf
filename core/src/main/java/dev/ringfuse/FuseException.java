package dev.ringfuse;

/**
 * Thrown by a filesystem callback to answer its request with an errno, instead of calling
 * {@code reply.error(...)}. Carries no stack trace: it is a reply, not a failure.
 */
public class FuseException extends RuntimeException {
    private final Errno errno;

    public FuseException(Errno errno) {
        this(errno, errno.description());
    }

    public FuseException(Errno errno, String message) {
        super(message, null, false, false);
        this.errno = errno;
    }

    public Errno errno() { return errno; }
}
