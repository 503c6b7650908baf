package dev.ringfuse.pool.io;

import java.io.IOException;

/** No copy of a block could be read with a matching checksum: the read fails (EIO), never returns bad data. */
public final class ChecksumException extends IOException {
    public ChecksumException(String message) {
        super(message);
    }
}
