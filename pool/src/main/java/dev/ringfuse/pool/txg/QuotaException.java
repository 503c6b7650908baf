package dev.ringfuse.pool.txg;

import java.io.IOException;

/** A change would pass the quota of a dataset or of one of its ancestors: the filesystem answers EDQUOT. */
public final class QuotaException extends IOException {
    public QuotaException(String message) {
        super(message);
    }
}
