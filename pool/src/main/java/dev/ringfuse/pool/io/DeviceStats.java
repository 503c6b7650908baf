package dev.ringfuse.pool.io;

import java.util.concurrent.atomic.AtomicLong;

/** Error counters of one device, as `pool status` shows them, and the bytes self-healing rewrote on it. */
public final class DeviceStats {
    public final AtomicLong readErrors = new AtomicLong();
    public final AtomicLong writeErrors = new AtomicLong();
    public final AtomicLong checksumErrors = new AtomicLong();
    /** Bytes of bad copies rewritten on this device from a good copy (reads, scrub). */
    public final AtomicLong repairedBytes = new AtomicLong();
    public volatile boolean faulted;

    @Override
    public String toString() {
        return "read=" + readErrors + " write=" + writeErrors + " cksum=" + checksumErrors + " repaired=" + repairedBytes
                + (faulted ? " FAULTED" : "");
    }
}
