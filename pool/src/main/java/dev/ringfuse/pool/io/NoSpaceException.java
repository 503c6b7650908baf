package dev.ringfuse.pool.io;

import java.io.IOException;

/** The pool has no room for a block (ENOSPC). */
public final class NoSpaceException extends IOException {
    public NoSpaceException(String message) {
        super(message);
    }
}
