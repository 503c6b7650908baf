package dev.ringfuse.fs.memfs;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The names in one directory. Each entry gets a cookie from a per-directory counter that only grows; the
 * cookie is the readdir offset the kernel sends back to continue after that entry. So a listing resumes
 * at the right place however many names were added or removed in between (telldir/seekdir work, nothing
 * is listed twice, and no entry that existed throughout is skipped). Cookies 1 and 2 belong to "." and "..".
 *
 * <p>A renamed name gets a new cookie, so it would show up again later in a listing that is under way. As
 * tmpfs does (its offset map remembers the next offset when the directory is opened or rewound), a listing
 * stops at the {@link #end()} it saw when it started at offset 0: names added or renamed after that belong to
 * the next pass. A pass therefore lists each name at most once and never more names than the directory held.
 *
 * <p>Not thread-safe: guarded by the directory's content lock. {@link #size()} alone may be read without it.
 */
final class DirEntries {
    /** Offset after ".", after "..", and the first entry's cookie. */
    static final long DOT = 1, DOTDOT = 2, FIRST = 3;

    record Dirent(String name, Inode node, long cookie) {}

    private final Map<String, Dirent> byName = new HashMap<>();
    private final TreeMap<Long, Dirent> byCookie = new TreeMap<>();
    private long nextCookie = FIRST;
    private volatile int size;

    Inode get(String name) {
        Dirent d = byName.get(name);
        return d == null ? null : d.node;
    }

    /** Adds or replaces {@code name}; a replaced or renamed name moves to the end of the listing. */
    void put(String name, Inode node) {
        remove(name);
        Dirent d = new Dirent(name, node, nextCookie++);
        byName.put(name, d);
        byCookie.put(d.cookie, d);
        size = byName.size();
    }

    Inode remove(String name) {
        Dirent d = byName.remove(name);
        if (d == null) return null;
        byCookie.remove(d.cookie);
        size = byName.size();
        return d.node;
    }

    boolean isEmpty() { return size == 0; }

    int size() { return size; }

    /** The cookie the next entry will get: a listing that starts now ends before it. */
    long end() { return nextCookie; }

    /** Entries whose cookie is greater than {@code offset} and less than {@code end}, in cookie order. */
    Collection<Dirent> after(long offset, long end) {
        return offset + 1 >= end ? java.util.List.of() : byCookie.subMap(offset, false, end, false).values();
    }
}
