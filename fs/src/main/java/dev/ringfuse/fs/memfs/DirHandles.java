package dev.ringfuse.fs.memfs;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Open directories. Each remembers where its current readdir pass ends (see {@link DirEntries}): set by the
 * first readdir at offset 0, i.e. after opendir and after every rewinddir, so a pass lists what the directory
 * held when it started (as tmpfs's offset map does) and entries added behind it are not chased forever.
 */
final class DirHandles {
    private static final class Handle {
        volatile long end = Long.MAX_VALUE;
    }

    private final ConcurrentHashMap<Long, Handle> handles = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong(1);

    long open() {
        long fh = next.getAndIncrement();
        handles.put(fh, new Handle());
        return fh;
    }

    /** The end of the pass that {@code offset} continues; offset 0 starts a new pass. Under the dir's read lock. */
    long passEnd(long fh, long offset, DirNode dir) {
        Handle h = handles.get(fh);
        if (h == null) return Long.MAX_VALUE;
        if (offset == 0) h.end = dir.entries.end();
        return h.end;
    }

    void release(long fh) {
        handles.remove(fh);
    }
}
