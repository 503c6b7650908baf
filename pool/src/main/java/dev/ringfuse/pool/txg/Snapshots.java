package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.tree.BTree;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Snapshots, rollback and clones of a pool's filesystems (DESIGN.md, "Snapshots and dead lists"). A snapshot
 * is a head of kind SNAPSHOT that freezes a filesystem's committed root at a txg boundary: constant time. A
 * block the live filesystem stops referencing is freed only if it was born after the newest snapshot; else it
 * goes on the dead list of the interval that began with that snapshot, so destroying a snapshot frees exactly
 * the blocks born after its predecessor and killed before its successor. Every operation runs under the pool
 * lock and ends with a commit: it is either wholly in the pool or wholly absent after a crash.
 */
public final class Snapshots {
    private static final String NAME = "[A-Za-z0-9_.:-]{1,200}";
    private static final String GUID = "guid";

    /** One snapshot as `snapshot list` shows it; {@code used} is what destroying it would free. */
    public record Info(String name, long id, long txg, long creationMs, long referenced, long used) {}

    private Snapshots() {}

    /**
     * The owner key of the dead list a filesystem (or snapshot) {@code fs} adds to while {@code prev} is its
     * newest snapshot: the interval after {@code prev}, or {@code fs} itself when {@code prev} belongs to
     * another filesystem (a clone's origin) or is none. Snapshots take over their filesystem's dead list
     * without copying it: the key does not change when a snapshot is taken.
     */
    static long deadKey(DatasetDir dir, long fs, long prev) throws IOException {
        if (prev == 0) return fs;
        DatasetHead p = dir.head(prev);
        return p != null && p.parent() == fs ? prev : fs;
    }

    static long deadKey(DatasetDir dir, long fs, DatasetHead head) throws IOException {
        return deadKey(dir, head.kind() == DatasetHead.SNAPSHOT ? head.parent() : fs, head.prevSnapshot());
    }

    /**
     * The id written into the B-tree nodes of dataset {@code id}: a snapshot shares its filesystem's nodes and
     * a clone its origin's, so all of them use the id of the filesystem that started the lineage.
     */
    static long treeId(DatasetDir dir, long id, DatasetHead h) throws IOException {
        for (int hops = 0; hops < 10_000; hops++) {
            if (h.kind() == DatasetHead.SNAPSHOT) id = h.parent();
            else if (h.origin() != 0) {
                DatasetHead o = dir.head(h.origin());
                if (o == null) throw new FormatException("dataset " + id + ": origin " + h.origin() + " is missing");
                id = o.parent();
            } else return id;
            h = dir.head(id);
            if (h == null) throw new FormatException("dataset directory: broken lineage at " + id);
        }
        throw new FormatException("dataset directory: lineage loop");
    }

    private record Ref(String fsName, long fs, String snap, long id, DatasetHead head) {}

    private static Ref resolve(Pool pool, String full, boolean mustExist) throws IOException {
        int at = full.indexOf('@');
        if (at <= 0 || at != full.lastIndexOf('@')) throw new IllegalArgumentException("expected POOL/NAME@SNAPSHOT, got '" + full + "'");
        String fsName = full.substring(0, at), snap = full.substring(at + 1);
        if (!snap.matches(NAME)) throw new IllegalArgumentException("bad snapshot name '" + snap + "'");
        long fs = pool.lookup(fsName);
        if (fs == 0) throw new IOException("dataset '" + fsName + "' does not exist");
        long id = pool.directory().snapshot(fs, snap);
        if (mustExist && id == 0) throw new IOException("snapshot '" + full + "' does not exist");
        return new Ref(fsName, fs, snap, id, id == 0 ? null : pool.directory().head(id));
    }

    private static DatasetHead current(Pool pool, long fs) throws IOException {
        Dataset open = pool.openDataset(fs);
        return open != null ? open.head : pool.directory().head(fs);
    }

    private static void putHead(Pool pool, long id, DatasetHead h) throws IOException {
        Dataset open = pool.openDataset(id);
        if (open != null) open.head = h;
        pool.directory().putHead(id, h);
        pool.dirty();
    }

    private static DatasetHead withPrev(DatasetHead h, long prev, long prevTxg) {
        return h.withPrev(prev, prevTxg);
    }

    /** Changes filesystem {@code fs}'s usedbysnapshots by {@code delta} (an open one's counters, else its head). */
    private static void addSnapshotBytes(Pool pool, long fs, long delta) throws IOException {
        if (delta == 0) return;
        Dataset open = pool.openDataset(fs);
        if (open != null) {
            open.space = open.space.withSnapshots(open.space.snapshots() + delta); // the commit writes the head
        } else {
            DatasetHead h = pool.directory().head(fs);
            pool.directory().putHead(fs, h.withSpace(h.space().withSnapshots(h.space().snapshots() + delta)));
        }
        pool.dirty();
    }

    /**
     * Takes snapshot "pool/fs@name" in one commit: the snapshot is the filesystem's tree as that txg writes
     * it, so every write that returned before is in it and none that started after (writes wait for the pool
     * lock); a crash leaves the snapshot and the txg's data wholly there or wholly absent.
     */
    public static long create(Pool pool, String full) throws IOException {
        long guid;
        do guid = new java.security.SecureRandom().nextLong(); while (guid == 0);
        return create(pool, full, guid);
    }

    /**
     * As above with a given guid: a snapshot's identity across pools (a received snapshot keeps the sent
     * one's, so an incremental stream can check that its "from" snapshot is the target's newest).
     */
    public static long create(Pool pool, String full, long guid) throws IOException {
        pool.lock().lock();
        try {
            pool.checkUsable();
            Ref r = resolve(pool, full, false);
            if (r.id != 0) throw new IOException("snapshot '" + full + "' already exists");
            if (current(pool, r.fs).kind() != DatasetHead.FILESYSTEM) throw new IOException("'" + r.fsName + "' is not a filesystem");
            long[] sid = new long[1];
            // inside the commit, once the filesystem's tree of this txg is written: its root is the snapshot's
            pool.atCommit(t -> {
                DatasetHead cur = current(pool, r.fs);
                sid[0] = pool.newDatasetId();
                // the filesystem's counters as this txg wrote them: the snapshot references exactly its tree
                pool.directory().putHead(sid[0], new DatasetHead(DatasetHead.SNAPSHOT, DatasetHead.SPACE_COUNTED, r.fs, 0,
                        cur.prevSnapshot(), cur.prevSnapshotTxg(), t, System.currentTimeMillis(), cur.root(),
                        cur.space().withSnapshots(0), r.snap));
                pool.directory().addSnapshot(r.fs, r.snap, sid[0]);
                pool.directory().setProperty(sid[0], GUID, Long.toHexString(guid));
                putHead(pool, r.fs, withPrev(cur, sid[0], t));
            });
            pool.commit();
            return sid[0];
        } finally {
            pool.lock().unlock();
        }
    }

    /** Snapshots of {@code fsName} (every filesystem's when null), oldest first per filesystem. */
    public static List<Info> list(Pool pool, String fsName) throws IOException {
        pool.lock().lock();
        try {
            List<Info> out = new ArrayList<>();
            for (String ds : fsName == null ? pool.datasets() : List.of(fsName)) {
                long fs = pool.lookup(ds);
                if (fs == 0) throw new IOException("dataset '" + ds + "' does not exist");
                List<Info> mine = new ArrayList<>();
                for (Map.Entry<String, Long> e : pool.directory().snapshots(fs).entrySet()) {
                    DatasetHead h = pool.directory().head(e.getValue());
                    mine.add(new Info(ds + "@" + e.getKey(), e.getValue(), h.creationTxg(), h.creationMs(), h.physicalBytes(),
                            unique(pool, e.getValue(), h)));
                }
                mine.sort(Comparator.comparingLong(Info::txg));
                out.addAll(mine);
            }
            return out;
        } finally {
            pool.lock().unlock();
        }
    }

    /** Bytes only snapshot {@code sid} references: its successor's dead blocks born after its predecessor. */
    private static long unique(Pool pool, long sid, DatasetHead h) throws IOException {
        long n = 0;
        for (BlockPointer bp : pool.directory().dead(sid)) if (bp.birth() > h.prevSnapshotTxg()) n += allocated(bp);
        return n;
    }

    private static long allocated(BlockPointer bp) {
        long n = 0;
        for (Dva d : bp.dvas()) n += d.asize();
        return n;
    }

    /** The read-only view of snapshot "pool/fs@name" (not committed, never changed: what .snapshots serves). */
    public static Dataset view(Pool pool, String full) throws IOException {
        pool.lock().lock();
        try {
            Ref r = resolve(pool, full, true);
            return new Dataset(pool, r.id, full, r.head, new BTree(pool.io(), treeId(pool.directory(), r.id, r.head), r.head.root()), true);
        } finally {
            pool.lock().unlock();
        }
    }

    /** Snapshots held by sends in progress, per pool: their blocks are read without the pool lock. */
    private static final Map<Pool, Map<Long, Integer>> HOLDS = new java.util.WeakHashMap<>();

    /** A hold on snapshots: {@link #destroy} refuses them until it is closed. */
    public interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Holds snapshots {@code names} (as `zfs send` does): while held, destroy refuses them, so their blocks stay
     * allocated and a reader may walk their trees without the pool lock (the trees never change).
     */
    public static Hold hold(Pool pool, List<String> names) throws IOException {
        List<Long> ids = new ArrayList<>();
        pool.lock().lock();
        try {
            pool.checkUsable();
            for (String n : names) ids.add(resolve(pool, n, true).id);
            synchronized (HOLDS) {
                Map<Long, Integer> m = HOLDS.computeIfAbsent(pool, k -> new java.util.HashMap<>());
                for (long id : ids) m.merge(id, 1, Integer::sum);
            }
        } finally {
            pool.lock().unlock();
        }
        return () -> {
            synchronized (HOLDS) {
                Map<Long, Integer> m = HOLDS.get(pool);
                for (long id : ids) m.computeIfPresent(id, (k, c) -> c == 1 ? null : c - 1);
            }
        };
    }

    private static boolean held(Pool pool, long id) {
        synchronized (HOLDS) {
            Map<Long, Integer> m = HOLDS.get(pool);
            return m != null && m.containsKey(id);
        }
    }

    /** True while snapshot {@code id} exists (a view of a destroyed one answers ESTALE). */
    public static boolean exists(Pool pool, long id) throws IOException {
        pool.lock().lock();
        try {
            DatasetHead h = pool.directory().head(id);
            return h != null && h.kind() == DatasetHead.SNAPSHOT;
        } finally {
            pool.lock().unlock();
        }
    }

    /**
     * Destroys snapshot "pool/fs@name"; returns the bytes freed: exactly the blocks born after the previous
     * snapshot that the next one (or the live filesystem) no longer references. Refused while a clone
     * depends on it.
     */
    public static long destroy(Pool pool, String full) throws IOException {
        pool.lock().lock();
        try {
            pool.checkUsable();
            Ref r = resolve(pool, full, true);
            if (held(pool, r.id)) throw new IOException("snapshot '" + full + "' is being sent: destroy it when the send is done");
            DatasetDir dir = pool.directory();
            for (long id : dir.allHeads()) {
                if (dir.head(id).origin() == r.id) throw new IOException("snapshot '" + full + "' has dependent clones (dataset id " + id + ")");
            }
            long next = r.fs;
            if (current(pool, r.fs).prevSnapshot() != r.id) {
                next = 0;
                for (long s : dir.snapshots(r.fs).values()) if (dir.head(s).prevSnapshot() == r.id) next = s;
                if (next == 0) throw new FormatException("snapshot '" + full + "' has no successor");
            }
            long prev = r.head.prevSnapshot(), prevTxg = r.head.prevSnapshotTxg();
            long inherit = deadKey(dir, r.fs, prev);
            long freed = 0, freedOwn = 0;
            long origin = SpaceWalk.originTxg(dir, current(pool, r.fs));
            for (BlockPointer bp : dir.dead(r.id)) {
                dir.removeDead(r.id, bp);
                if (bp.birth() > prevTxg) {
                    pool.io().allocator().free(bp.dvas());
                    freed += allocated(bp);
                    if (bp.birth() > origin) freedOwn += allocated(bp);
                } else {
                    dir.addDead(inherit, bp);
                }
            }
            DatasetHead n = next == r.fs ? current(pool, r.fs) : dir.head(next);
            putHead(pool, next, withPrev(n, prev, prevTxg));
            addSnapshotBytes(pool, r.fs, -freedOwn);
            dir.removeAll(r.id);
            dir.removeSnapshot(r.fs, r.snap);
            pool.dirty();
            pool.commit();
            return freed;
        } finally {
            pool.lock().unlock();
        }
    }

    /**
     * Rolls filesystem "pool/fs" back to its newest snapshot: blocks born since are freed, the dead list since
     * is dropped (those blocks are the snapshot's and now again the filesystem's), the root becomes the
     * snapshot's. An open dataset's tree is reset in place; its reset hook runs after the pool lock is
     * released (the kernel's caches are invalidated from outside the lock, as the Notifier demands).
     */
    public static void rollback(Pool pool, String full) throws IOException {
        rollback(pool, full, true);
    }

    /**
     * As above; without {@code commitFirst} the changes made since the last commit are discarded with the rest
     * (a failed receive undoes itself so: none of its changes ever reach the disk).
     */
    public static void rollback(Pool pool, String full, boolean commitFirst) throws IOException {
        rollback(pool, full, commitFirst, true);
    }

    /**
     * As above; without {@code invalidate} a mounted dataset's reset hook is not used: a failed receive undoes
     * changes that no request saw (it held the pool lock throughout), and must not notify the kernel under it.
     */
    public static void rollback(Pool pool, String full, boolean commitFirst, boolean invalidate) throws IOException {
        Dataset open;
        ResetHook hook;
        pool.lock().lock();
        try {
            pool.checkUsable();
            Ref r = resolve(pool, full, true);
            open = pool.openDataset(r.fs);
            hook = open == null || !invalidate ? null : open.resetHook;
            if (hook != null) hook.beforeReset();
            if (commitFirst) pool.commit();
            DatasetDir dir = pool.directory();
            DatasetHead cur = current(pool, r.fs);
            if (cur.prevSnapshot() != r.id) {
                throw new IOException("'" + full + "' is not the most recent snapshot of '" + r.fsName + "': destroy the newer ones first");
            }
            long snapTxg = r.head.creationTxg();
            BTree tree = open != null ? open.tree : new BTree(pool.io(), treeId(dir, r.fs, cur), cur.root());
            tree.freeBornAfter(snapTxg, bp -> pool.io().allocator().free(bp.dvas()), (k, v) -> {
                if (k.type() == 80) {
                    BlockPointer bp = BlockPointer.fromBytes(v);
                    if (bp.birth() > snapTxg) pool.io().allocator().free(bp.dvas());
                }
                return true;
            });
            // the blocks of the dropped dead list are the filesystem's again: no longer usedbysnapshots
            long origin = SpaceWalk.originTxg(dir, cur);
            long back2live = 0;
            for (BlockPointer bp : dir.dead(r.id)) {
                dir.removeDead(r.id, bp);
                if (bp.birth() > origin) back2live += allocated(bp);
            }
            DatasetHead.Space now = open != null ? open.space : cur.space(); // an open one's has uncommitted frees
            DatasetHead back = cur.withRoot(r.head.root(), r.head.space().withSnapshots(now.snapshots() - back2live));
            if (open != null) {
                open.tree.reset(r.head.root());
                open.space = back.space();
            }
            putHead(pool, r.fs, back);
            pool.commit();
            if (hook != null) hook.afterReset();
        } finally {
            pool.lock().unlock();
        }
        if (hook != null) hook.notifyKernel();
    }

    /**
     * What a filesystem serving a dataset does around a rollback: remember what the kernel may cache (under
     * the lock, before), drop its own caches (under the lock, after), tell the kernel (without the lock).
     */
    public interface ResetHook {
        void beforeReset() throws IOException;

        void afterReset() throws IOException;

        void notifyKernel();
    }

    /** Creates filesystem {@code target} as a writable clone of snapshot {@code snapFull}: constant time, shares every block. */
    public static Dataset clone(Pool pool, String snapFull, String target, Map<String, String> props) throws IOException {
        pool.lock().lock();
        try {
            pool.checkUsable();
            Ref r = resolve(pool, snapFull, true);
            Dataset made = pool.createDataset(target, props);
            DatasetDir dir = pool.directory();
            DatasetHead h = dir.head(made.id);
            pool.forget(made.id);
            // every block is the origin's until rewritten: the clone references them all and owns none
            dir.putHead(made.id, new DatasetHead(DatasetHead.FILESYSTEM, DatasetHead.SPACE_COUNTED, h.parent(), r.id, r.id,
                    r.head.creationTxg(), h.creationTxg(), h.creationMs(), r.head.root(), r.head.space().withOwn(0).withSnapshots(0), h.name()));
            pool.dirty();
            pool.commit();
            return pool.dataset(target);
        } finally {
            pool.lock().unlock();
        }
    }

    /** The guid of snapshot "pool/fs@name" (0 for one taken before guids existed). */
    public static long guid(Pool pool, String full) throws IOException {
        pool.lock().lock();
        try {
            Ref r = resolve(pool, full, true);
            String g = pool.directory().properties(r.id).get(GUID);
            return g == null ? 0 : Long.parseUnsignedLong(g, 16);
        } finally {
            pool.lock().unlock();
        }
    }

    /** The newest snapshot of {@code fsName}, or null. */
    public static Info newest(Pool pool, String fsName) throws IOException {
        List<Info> all = list(pool, fsName);
        return all.isEmpty() ? null : all.getLast();
    }

    /** True when filesystem {@code fsName} changed since its newest snapshot (or has none). Commits first. */
    public static boolean changedSinceNewest(Pool pool, String fsName) throws IOException {
        pool.lock().lock();
        try {
            pool.commit();
            long fs = pool.lookup(fsName);
            if (fs == 0) throw new IOException("dataset '" + fsName + "' does not exist");
            DatasetHead h = current(pool, fs);
            if (h.prevSnapshot() == 0) return true;
            return !h.root().equals(pool.directory().head(h.prevSnapshot()).root());
        } finally {
            pool.lock().unlock();
        }
    }

    /** The origin snapshot's full name of a clone, or null. */
    public static String origin(Pool pool, String fsName) throws IOException {
        pool.lock().lock();
        try {
            long fs = pool.lookup(fsName);
            if (fs == 0) throw new IOException("dataset '" + fsName + "' does not exist");
            DatasetHead h = pool.directory().head(fs);
            if (h.origin() == 0) return null;
            DatasetHead o = pool.directory().head(h.origin());
            for (String ds : pool.datasets()) if (pool.lookup(ds) == o.parent()) return ds + "@" + o.name();
            return "?@" + o.name();
        } finally {
            pool.lock().unlock();
        }
    }
}
