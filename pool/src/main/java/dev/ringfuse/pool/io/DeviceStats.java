package dev.ringfuse.pool.io;

import java.util.concurrent.atomic.AtomicLong;

/** Error counters of one device, as `pool status` shows them. */
public final class DeviceStats {
    public final AtomicLong readErrors = new AtomicLong();
    public final AtomicLong writeErrors = new AtomicLong();
    public final AtomicLong checksumErrors = new AtomicLong();
    public volatile boolean faulted;

    @Override
    public String toString() {
        return "read=" + readErrors + " write=" + writeErrors + " cksum=" + checksumErrors + (faulted ? " FAULTED" : "");
    }
}
