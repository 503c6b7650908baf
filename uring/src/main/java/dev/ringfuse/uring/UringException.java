package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Errno;

import java.io.IOException;
import java.io.Serial;

/**
 * An io_uring operation, setup or registration failed. Carries the positive {@code errno} and the name of the
 * operation (an opcode such as {@code "READ"}, or a syscall such as {@code "io_uring_setup"}).
 */
public class UringException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** errno used when an operation fails because its ring was closed before it completed. */
    public static final int ECANCELED = Errno.ECANCELED;

    private final int errno;
    private final String operation;

    /**
     * @param operation the opcode or syscall that failed
     * @param errno     the positive errno it failed with
     */
    public UringException(String operation, int errno) {
        this(operation, errno, null);
    }

    /**
     * @param operation the opcode or syscall that failed
     * @param errno     the positive errno it failed with
     * @param detail    what else the message should say (the path, the ring), or null
     */
    public UringException(String operation, int errno, String detail) {
        super(operation + ": " + Errno.name(errno) + (detail == null ? "" : " (" + detail + ")"));
        this.errno = errno;
        this.operation = operation;
    }

    /** Builds the exception for a raw result: {@code res} is a negative errno as found in a CQE. */
    public static UringException fromResult(String operation, int res) {
        return new UringException(operation, -res);
    }

    /** The positive errno value (e.g. 2 for ENOENT). */
    public int errno() {
        return errno;
    }

    /** The symbolic errno name, e.g. {@code "ENOENT"}. */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** The failed operation: an opcode name ({@code "READ"}) or a syscall ({@code "io_uring_register"}). */
    public String operation() {
        return operation;
    }
}
