package dev.ringfuse;

/**
 * Thrown by a filesystem callback to answer its request with an errno, instead of calling
 * {@code reply.error(...)}. Carries no stack trace: it is a reply, not a failure.
 */
public class FuseException extends RuntimeException {
    private final Errno errno;

    /** @param errno the error the request is answered with; the message is its description */
    public FuseException(Errno errno) {
        this(errno, errno.description());
    }

    /**
     * @param errno   the error the request is answered with
     * @param message for logs and the -v trace only: the kernel receives just the errno
     */
    public FuseException(Errno errno, String message) {
        super(message, null, false, false);
        this.errno = errno;
    }

    /** @return the errno the request is answered with */
    public Errno errno() { return errno; }
}
