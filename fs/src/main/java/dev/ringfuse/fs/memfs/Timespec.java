package dev.ringfuse.fs.memfs;

import java.time.Instant;

/**
 * A point in time as seconds and nanoseconds since the epoch. Kept as a pair rather than one long of
 * nanoseconds because utimensat(2) may set any 64-bit second, far outside the ±292 years a long of
 * nanoseconds can hold.
 */
record Timespec(long sec, int nsec) {
    static Timespec now() {
        Instant i = Instant.now();
        return new Timespec(i.getEpochSecond(), i.getNano());
    }

    boolean isAfter(Timespec o) {
        return sec != o.sec ? sec > o.sec : nsec > o.nsec;
    }
}
