package dev.ringfuse.fs;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The adapter's open files: the kernel's file handle → the filesystem's own handle, plus a directory's
 * listing between readdir calls. Kernel handle 0 is never issued: it stands for "no open file" (stateless
 * opens), which maps to {@link PathFileSystem#NO_FH}.
 */
final class HandleTable {
    /** One listed name; {@code stat} as the filesystem gave it (may be null). */
    record Listed(String name, FileStat stat) {}

    static final class Open {
        final long nodeid;
        final long fsFh;
        /** The listing taken at the last readdir from offset 0; guarded by this. */
        List<Listed> listing;

        Open(long nodeid, long fsFh) {
            this.nodeid = nodeid;
            this.fsFh = fsFh;
        }
    }

    private final ConcurrentHashMap<Long, Open> open = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong(1);

    long add(long nodeid, long fsFh) {
        long fh = next.getAndIncrement();
        open.put(fh, new Open(nodeid, fsFh));
        return fh;
    }

    /** The open file of kernel handle {@code fh}, or null. */
    Open get(long fh) {
        return open.get(fh);
    }

    /** The filesystem's handle for kernel handle {@code fh}. */
    long fsFh(long fh) {
        Open o = fh > 0 ? open.get(fh) : null;
        return o == null ? PathFileSystem.NO_FH : o.fsFh;
    }

    /** The filesystem's handle of some open file of {@code nodeid}, or NO_FH (a scan: only for unlinked files). */
    long anyFor(long nodeid) {
        for (Open o : open.values()) if (o.nodeid == nodeid) return o.fsFh;
        return PathFileSystem.NO_FH;
    }

    Open remove(long fh) {
        return open.remove(fh);
    }

    int size() {
        return open.size();
    }
}
