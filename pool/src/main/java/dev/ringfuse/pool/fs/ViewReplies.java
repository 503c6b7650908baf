package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.StatxReply;

/**
 * Replies of a snapshot view's {@link PoolFs} as the kernel sees them through {@link SnapshotDirFs}: node ids
 * moved into the view's range ({@code index << 48 | ino}), and every entry handed out counted, since the view
 * lives until the kernel has forgotten as many.
 */
final class ViewReplies {
    private ViewReplies() {}

    static long outer(SnapshotViews.Slot v, long ino) {
        return ino == 0 ? 0 : ((long) v.index << SnapshotDirFs.SHIFT) | ino;
    }

    static Attr mapAttr(SnapshotViews.Slot v, Attr a) {
        return new Attr(outer(v, a.ino()), a.mode(), a.nlink(), a.uid(), a.gid(), a.rdev(), a.size(), a.blocks(), a.blksize(),
                a.atimeSec(), a.atimeNsec(), a.mtimeSec(), a.mtimeNsec(), a.ctimeSec(), a.ctimeNsec(), a.btimeSec(), a.btimeNsec());
    }

    static Entry mapEntry(SnapshotViews.Slot v, Entry e) {
        return new Entry(outer(v, e.nodeid()), e.generation(), mapAttr(v, e.attr()), e.entryTimeoutNanos(), e.attrTimeoutNanos());
    }

    /** Counts each entry handed to the kernel: the view lives until the kernel forgets as many. */
    static EntryReply entries(SnapshotViews views, SnapshotViews.Slot v, EntryReply r) {
        return new EntryReply() {
            @Override public void entry(Entry e) {
                views.counted(v, 1);
                r.entry(mapEntry(v, e));
            }
            @Override public void negative(long t) { r.negative(t); }
            @Override public void error(Errno e) { r.error(e); }
            @Override public void error(int e) { r.error(e); }
            @Override public boolean isDone() { return r.isDone(); }
        };
    }

    static AttrReply attrs(SnapshotViews.Slot v, AttrReply r) {
        return new AttrReply() {
            @Override public void attr(Attr a, long t) { r.attr(mapAttr(v, a), t); }
            @Override public void error(Errno e) { r.error(e); }
            @Override public void error(int e) { r.error(e); }
            @Override public boolean isDone() { return r.isDone(); }
        };
    }

    static StatxReply statxs(SnapshotViews.Slot v, StatxReply r) {
        return new StatxReply() {
            @Override public void statx(Attr a, int mask, long t) { r.statx(mapAttr(v, a), mask, t); }
            @Override public void error(Errno e) { r.error(e); }
            @Override public void error(int e) { r.error(e); }
            @Override public boolean isDone() { return r.isDone(); }
        };
    }

    static DirReply dirs(SnapshotViews.Slot v, DirReply r) {
        return new DirReply() {
            @Override public boolean add(String name, long ino, int type, long next) { return r.add(name, outer(v, ino), type, next); }
            @Override public void send() { r.send(); }
            @Override public void error(Errno e) { r.error(e); }
            @Override public void error(int e) { r.error(e); }
            @Override public boolean isDone() { return r.isDone(); }
        };
    }

    /** As {@link #entries}: every entry with a node id in the reply is one lookup the kernel will forget. */
    static DirPlusReply dirPlus(SnapshotViews views, SnapshotViews.Slot v, long dir, DirPlusReply r) {
        return new DirPlusReply() {
            @Override public boolean add(String name, Entry e, long next) {
                boolean added = r.add(name, mapEntry(v, e), next);
                if (added && e.nodeid() != 0) {
                    views.counted(v, 1);
                    views.named(v, dir, name);
                }
                return added;
            }
            @Override public void send() { r.send(); }
            @Override public void error(Errno e) { r.error(e); }
            @Override public void error(int e) { r.error(e); }
            @Override public boolean isDone() { return r.isDone(); }
        };
    }
}
