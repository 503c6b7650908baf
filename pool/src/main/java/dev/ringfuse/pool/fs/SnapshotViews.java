package dev.ringfuse.pool.fs;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Notifier;
import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The read-only views behind {@code MNT/.snapshots/NAME/}, each in a slot whose index is the top bits of its
 * node ids. A slot lives exactly as long as the kernel holds a node of it: every entry handed out counts one
 * lookup, FORGET and BATCH_FORGET take them back, and at zero the slot and its index are free again. The view
 * itself (a {@link PoolFs} over the snapshot's tree, with every B-tree node it loaded) is heavier: it is
 * dropped after {@code idle} without requests (and rebuilt on the next one), and the kernel is asked to drop
 * the name so that it forgets the nodes. A destroyed snapshot's view is dropped when noticed (on its next
 * request or the next sweep): its name answers ENOENT, its nodes ESTALE, and its slot goes at the forget.
 * Everything here is guarded by the pool lock.
 */
final class SnapshotViews implements AutoCloseable {
    /** Slot indexes fit below {@link SnapshotDirFs#SNAPDIR}'s bit; 0 is the live dataset. */
    static final int MAX = 1 << 14;

    /** A name the kernel may cache in a view: {@code name} in directory node {@code dir} (as the kernel knows it). */
    record Name(long dir, String name) {}

    /** Names remembered per view at most: beyond, an idle or destroyed view's nodes wait for the kernel's own reclaim. */
    static final int MAX_NAMES = 4096;

    /** One snapshot the kernel may hold nodes of. */
    static final class Slot {
        final int index;
        final String name;
        final long snapId;
        /** Names looked up in the view, so that the kernel can be asked to drop them (children first). */
        final java.util.LinkedHashSet<Name> names = new java.util.LinkedHashSet<>();
        long lookups;
        PoolFs fs;
        long lastUsed;
        boolean gone;
        /** The kernel is to be asked to drop the view's names (destroyed, or idle). */
        boolean dropNames;

        Slot(int index, String name, long snapId) {
            this.index = index;
            this.name = name;
            this.snapId = snapId;
        }
    }

    private final PoolFs live;
    private final Pool pool;
    private final long idleNanos;
    private final Slot[] byIndex = new Slot[MAX];
    private final Map<String, Slot> byName = new HashMap<>();
    private final ArrayDeque<Integer> freeIndexes = new ArrayDeque<>();
    private int nextIndex = 1, slots, loaded;
    private ScheduledExecutorService sweeper;

    SnapshotViews(PoolFs live, long idleNanos) {
        this.live = live;
        this.pool = live.pool;
        this.idleNanos = idleNanos;
    }

    /** Starts the idle sweep (at mount: it needs the kernel's notifier). */
    void start() {
        long period = Math.clamp(idleNanos / 4, 50_000_000L, 5_000_000_000L); // destroyed snapshots are noticed within 5 s
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("pool-snapview-sweep").unstarted(r));
        sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.NANOSECONDS);
    }

    /** Slots in use: views the kernel may hold nodes of (what the tests watch return to 0). */
    int slots() {
        pool.lock().lock();
        try {
            return slots;
        } finally {
            pool.lock().unlock();
        }
    }

    /** Views loaded (a PoolFs and its tree nodes in memory). */
    int loaded() {
        pool.lock().lock();
        try {
            return loaded;
        } finally {
            pool.lock().unlock();
        }
    }

    /** The slot of snapshot {@code name} (opened if needed), or null when no such snapshot exists. */
    Slot byName(String name) throws IOException {
        long id = pool.directory().snapshot(live.ds.id(), name);
        Slot s = byName.get(name);
        if (s != null && s.snapId != id) { // destroyed (and maybe taken again under the same name)
            gone(s);
            s = null;
        }
        if (id == 0) return null;
        if (s == null) {
            Integer free = freeIndexes.poll();
            if (free == null && nextIndex >= MAX) throw new FuseException(Errno.ENFILE);
            s = new Slot(free != null ? free : nextIndex++, name, id);
            byIndex[s.index] = s;
            byName.put(name, s);
            slots++;
        }
        load(s);
        return s;
    }

    /** The live slot owning node index {@code k}: ESTALE if its snapshot is gone. */
    Slot require(int k) throws IOException {
        Slot s = k > 0 && k < MAX ? byIndex[k] : null;
        if (s == null || s.gone) throw new FuseException(Errno.ESTALE);
        if (!Snapshots.exists(pool, s.snapId)) {
            gone(s);
            throw new FuseException(Errno.ESTALE);
        }
        load(s);
        return s;
    }

    private void load(Slot s) throws IOException {
        s.lastUsed = System.nanoTime();
        if (s.fs != null) return;
        Dataset ds = Snapshots.view(pool, live.ds.name() + "@" + s.name);
        if (ds.id() != s.snapId) throw new FuseException(Errno.ESTALE);
        s.fs = new PoolFs(ds, false, 0, false, CacheTimeouts.SHORT);
        loaded++;
    }

    /** The kernel may cache {@code name} in directory {@code dir} of view {@code s}. */
    void named(Slot s, long dir, String name) {
        if (s.names.size() < MAX_NAMES) s.names.add(new Name(dir, name));
    }

    /** The kernel got {@code n} more references to nodes of {@code s}. */
    void counted(Slot s, long n) {
        s.lookups += n;
    }

    /** The kernel dropped {@code n} references to node {@code ino} of slot {@code k}; at zero the slot is free. */
    void forget(int k, long ino, long n) {
        Slot s = k > 0 && k < MAX ? byIndex[k] : null;
        if (s == null) return;
        if (s.fs != null) s.fs.inodes.forget(ino, n);
        s.lookups -= n;
        if (s.lookups > 0) return;
        unload(s);
        byIndex[k] = null;
        byName.remove(s.name, s);
        freeIndexes.add(k);
        slots--;
    }

    private void unload(Slot s) {
        if (s.fs == null) return;
        s.fs = null;
        loaded--;
    }

    /** Snapshot of {@code s} destroyed: the view goes now, the slot when the kernel forgets its nodes. */
    private void gone(Slot s) {
        if (!s.gone) s.dropNames = true;
        s.gone = true;
        unload(s);
        byName.remove(s.name, s);
    }

    /** Drops views of destroyed snapshots and idle views, then asks the kernel to drop their names. */
    void sweep() {
        List<Name> names = new ArrayList<>();
        pool.lock().lock();
        try {
            if (pool.suspended() != null) return;
            long now = System.nanoTime();
            for (Slot s : byIndex) {
                if (s == null) continue;
                if (!s.gone && !Snapshots.exists(pool, s.snapId)) gone(s);
                if (s.fs != null && now - s.lastUsed > idleNanos) {
                    unload(s);
                    s.dropNames = true;
                }
                if (!s.dropNames) continue;
                // children first: a directory's dentry is only freed once its children's are; a name in use
                // (an open file) is unhashed all the same, and its node forgotten once closed
                List<Name> mine = new ArrayList<>(s.names);
                names.addAll(mine.reversed());
                names.add(new Name(SnapshotDirFs.SNAPDIR, s.name));
                s.names.clear();
                s.dropNames = false;
            }
        } catch (IOException | RuntimeException e) {
            System.getLogger("dev.ringfuse.pool").log(System.Logger.Level.WARNING, "snapshot view sweep: " + e.getMessage());
            return;
        } finally {
            pool.lock().unlock();
        }
        dropNames(names);
    }

    /**
     * Asks the kernel to drop each name (the view's names, then {@code .snapshots/NAME}): it then forgets the
     * nodes no process holds — also those under a name it dropped already but still caches below (a file of a
     * destroyed snapshot closed after its name went). Without the pool lock (a lookup waiting for it holds the
     * directory's lock).
     */
    private void dropNames(List<Name> names) {
        Notifier n = live.notifier;
        if (n == null) return;
        for (Name name : names) {
            try {
                n.invalEntry(name.dir(), name.name());
            } catch (IOException e) {
                // ENOENT: the kernel does not have the name cached, nothing to drop
            }
        }
    }

    @Override
    public void close() {
        if (sweeper != null) sweeper.shutdownNow();
    }
}
