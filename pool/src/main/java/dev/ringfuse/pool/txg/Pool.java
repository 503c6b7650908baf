package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.format.MosBlock;
import dev.ringfuse.pool.format.Uberblock;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.NoSpaceException;
import dev.ringfuse.pool.space.SpaceLog;
import dev.ringfuse.pool.tree.BTree;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An open (imported) pool: devices, the dataset directory, open datasets, and transaction group commits
 * (DESIGN.md, "Transaction groups and durability"). Every change to a tree happens under {@link #lock()};
 * {@link #commit()} takes the same lock, so a txg is a consistent cut. After a failed commit the pool is
 * suspended: every later operation fails until it is imported again (nothing half-written is reachable).
 */
public final class Pool implements AutoCloseable {
    public static final long ROOT_DATASET = 1;
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock commitLock = new ReentrantLock();
    private final BlockIo io;
    private final Vdevs vdevs;
    private final DatasetDir dir;
    private final Map<Long, Dataset> open = new HashMap<>();
    private volatile long txg;
    private volatile BlockPointer mosBp;
    private SpaceLog.Chain spaceLog;
    private long nextDatasetId;
    private volatile boolean changed;

    /** Something outside a transaction changed (an import's counter upgrade): the next commit writes it. */
    void markChanged() {
        changed = true;
    }
    /** Set while a scrub or resilver runs (one at a time). */
    final java.util.concurrent.atomic.AtomicReference<String> maintenance = new java.util.concurrent.atomic.AtomicReference<>();
    private volatile IOException suspended;
    private boolean closed;
    private final DatasetSpace space = new DatasetSpace(this);

    Pool(BlockIo io, Vdevs vdevs, DatasetDir dir, long txg, BlockPointer mosBp, SpaceLog.Chain spaceLog, long nextDatasetId) {
        this.io = io;
        this.vdevs = vdevs;
        this.dir = dir;
        this.txg = txg;
        this.mosBp = mosBp;
        this.spaceLog = spaceLog;
        this.nextDatasetId = nextDatasetId;
    }

    /** Creates a stripe pool named {@code name} on {@code devices} (their contents are overwritten) with its root dataset. */
    public static Pool create(String name, List<BlockDevice> devices) throws IOException {
        return create(name, devices, Label.stripe(devices.size()));
    }

    /**
     * Creates a pool whose device i belongs to top-level vdev {@code vdevs.get(i)}: devices sharing a vdev are
     * the sides of a mirror (DESIGN.md, "Config block").
     */
    public static Pool create(String name, List<BlockDevice> devices, List<Integer> vdevTable) throws IOException {
        Label.checkName(name);
        if (devices.isEmpty() || devices.size() > Layout.MAX_DEVICES) throw new IllegalArgumentException("1 to 64 devices");
        SecureRandom rnd = new SecureRandom();
        long poolGuid = nonZero(rnd);
        List<Label.DeviceEntry> entries = new ArrayList<>();
        for (BlockDevice d : devices) {
            long usable = Layout.usable(d.size());
            if (usable < Layout.MIN_DEVICE) throw new IOException(d.name() + ": too small (at least 64 MiB)");
            if (d.alignment() > Layout.SECTOR) throw new IOException(d.name() + ": block size " + d.alignment() + " > 4096");
            entries.add(new Label.DeviceEntry(nonZero(rnd), usable));
        }
        long now = System.currentTimeMillis();
        List<Label> labels = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            labels.add(new Label(Label.ACTIVE, poolGuid, entries.get(i).guid(), 0, now, entries.get(i).usableSize(), i, entries, name,
                    vdevTable));
        }
        // wipe old uberblock rings so that nothing of a previous pool on these devices can be imported
        byte[] zero = new byte[Layout.UBERBLOCK_SLOTS * Layout.SECTOR];
        for (int d = 0; d < devices.size(); d++) {
            for (int l = 0; l < 4; l++) devices.get(d).write(Layout.labelOffset(l, labels.get(d).usableSize()) + Layout.RING_OFFSET, zero, 0, zero.length);
        }
        Vdevs vdevs = Vdevs.of(labels, devices.toArray(BlockDevice[]::new));
        BlockIo io = new BlockIo(vdevs.top(), vdevs.newAllocator());
        vdevs.attach(io);
        DatasetDir dir = new DatasetDir(new BTree(io, 0, BlockPointer.HOLE));
        Pool p = new Pool(io, vdevs, dir, 0, BlockPointer.HOLE, SpaceLog.Chain.EMPTY, ROOT_DATASET + 1);
        dir.putHead(ROOT_DATASET, new DatasetHead(DatasetHead.FILESYSTEM, DatasetHead.SPACE_COUNTED, 0, 0, 0, 0, 1, now,
                BlockPointer.HOLE, DatasetHead.Space.ZERO, name));
        p.changed = true;
        p.commit();
        Labels.write(vdevs, labels);
        return p;
    }

    static long nonZero(SecureRandom r) {
        long v;
        do v = r.nextLong(); while (v == 0);
        return v;
    }

    /**
     * Imports the pool on {@code devices} (any order); clear errors for foreign, damaged or incomplete sets. A
     * mirror with a side missing imports DEGRADED. On failure the devices are closed.
     */
    public static Pool open(List<BlockDevice> devices) throws IOException {
        return PoolImport.open(devices);
    }

    /** The newest valid label of a device (what `pool import` scans for), or a FormatException. */
    public static Label peekLabel(BlockDevice device) throws IOException {
        return Labels.read(device);
    }

    public ReentrantLock lock() { return lock; }
    public String name() { return vdevs.config().poolName(); }
    public long guid() { return vdevs.config().poolGuid(); }
    public BlockIo io() { return io; }
    /** The devices present, by device index (missing ones left out). */
    public List<BlockDevice> devices() { return vdevs.present(); }
    /** Leaves, top-level vdevs, states and counters. */
    public Vdevs vdevs() { return vdevs; }
    public long txg() { return txg; }
    public DatasetDir directory() { return dir; }
    public IOException suspended() { return suspended; }

    /** Per-dataset space: figures, quotas and reservations. Under {@link #lock()}. */
    public DatasetSpace space() { return space; }

    /** Dirty file data of every open dataset, waiting in memory for the next commit. */
    long pendingBytes() {
        long n = 0;
        for (Dataset ds : open.values()) n += ds.pendingBytes();
        return n;
    }
    BlockPointer mosPointer() { return mosBp; }
    BlockPointer spaceLogHead() { return spaceLog.head(); }

    /** Work done inside a commit once the datasets' trees are written, before the directory is (snapshots). */
    interface CommitAction {
        void run(long txg) throws IOException;
    }

    private final List<CommitAction> atCommit = new ArrayList<>();

    /** Runs {@code a} inside the next commit (under the pool lock), so that its changes and that txg's trees are one cut. */
    void atCommit(CommitAction a) {
        atCommit.add(a);
        changed = true;
    }

    /** The open dataset {@code id}, or null (snapshots and clones change heads of open datasets in place). */
    Dataset openDataset(long id) { return open.get(id); }

    /** Drops an open dataset object (its head was replaced in the directory). */
    void forget(long id) { open.remove(id); }

    /** A fresh dataset id (filesystems and snapshots share the id space). */
    long newDatasetId() {
        changed = true;
        return nextDatasetId++;
    }

    /** Blocks in the space log chain (import replays them all; condensed past a limit). */
    public long spaceLogLength() { return spaceLog.length(); }

    /** Fails if the pool is suspended or closed. */
    public void checkUsable() throws IOException {
        if (suspended != null) throw new IOException("pool '" + name() + "' is suspended after an I/O failure: " + suspended.getMessage(), suspended);
        if (closed) throw new IOException("pool '" + name() + "' is closed");
    }

    /** Marks that something changed in this txg (datasets call this after modifying their tree). */
    public void dirty() {
        changed = true;
    }

    /**
     * Commits the open txg: sync hooks, trees, dataset heads, directory, space log, MOS; flush; uberblock;
     * flush. Returns once the new state is durable. A no-op when nothing changed, unless the last commit left
     * frees deferred ({@link #releaseDue}): then an otherwise empty txg releases them.
     *
     * <p>Two phases: the blocks are built under the pool lock (a consistent cut), then written, flushed and
     * made current under {@link #commitLock} alone, so that requests (the next txg) go on while the device
     * works. Blocks still being written are read from memory ({@link BlockIo}). Lock order: pool lock, then
     * commit lock; one commit in flight at a time. A caller holding the pool lock commits synchronously.
     */
    public void commit() throws IOException {
        Uberblock ub;
        BlockPointer log;
        SpaceLog.Chain chain;
        boolean releasing; // nothing changed: this txg only releases the last one's deferred frees
        CommitEvent ev = new CommitEvent();
        ev.begin();
        long t0 = System.nanoTime();
        lockForCommit();
        long t1 = System.nanoTime();
        try {
            try {
                checkUsable();
                for (Dataset ds : open.values()) if (ds.hook != null) ds.hook.sync(txg + 1);
            } catch (Throwable e) { // an Error too: a commit lock left held hangs every later commit and request
                commitLock.unlock();
                throw e;
            }
            releasing = !changed && !anyDirty();
            if (releasing && !releaseDue) {
                commitLock.unlock();
                return;
            }
            try {
                long t = txg + 1;
                for (Dataset ds : open.values()) {
                    if (!ds.tree.dirty() && ds.space.equals(ds.head.space()) && ds.head.counted()) continue;
                    BlockPointer root = ds.commitTree(t); // counts the nodes it writes: read the counters after
                    ds.head = ds.head.withRoot(root, ds.space);
                    dir.putHead(ds.id, ds.head);
                }
                for (CommitAction a : atCommit) a.run(t);
                atCommit.clear();
                if (!mosBp.isHole()) io.allocator().free(mosBp.dvas());
                BlockPointer dirRoot = dir.tree().commit(t, dev.ringfuse.pool.format.Compression.LZ4);
                Dva[] mosDvas = io.allocator().allocate(MosBlock.SIZE, 2, true);
                if (mosDvas == null) throw new NoSpaceException("no room for the MOS block");
                boolean condense = spaceLog.length() >= SpaceLog.condenseAfter();
                log = condense ? SpaceLog.condense(io, t, spaceLog) : SpaceLog.append(io, t, spaceLog.head());
                chain = (condense ? SpaceLog.Chain.EMPTY : spaceLog).then(log);
                ev.condensed = condense;
                long allocated = io.allocator().capacity() - io.allocator().freeBytes();
                MosBlock mos = new MosBlock(t, dirRoot, log, allocated, nextDatasetId, chain.length());
                BlockPointer newMos = io.writeAt(mosDvas, BlockType.MOS, mos.encode(), t);
                io.allocator().beginCommit();
                changed = false;
                ub = new Uberblock(t, guid(), System.currentTimeMillis(), vdevs.config().guidSum(), newMos);
            } catch (Throwable e) { // as above: never return with the commit lock held
                fail(e);
                commitLock.unlock();
                if (e instanceof Error er) throw er;
                throw suspended;
            }
        } finally {
            lock.unlock();
        }
        long t2 = System.nanoTime(), t3, t4, t5;
        try {
            ev.bytes = io.submit();
            t3 = System.nanoTime();
            io.flush();
            t4 = System.nanoTime();
            Labels.writeUberblock(vdevs, vdevs.labels(), ub);
            t5 = System.nanoTime();
            mosBp = ub.mos();
            spaceLog = chain;
            io.allocator().committed();
            txg = ub.txg();
            releaseDue = !releasing && io.allocator().deferring();
        } catch (Throwable e) {
            fail(e);
            if (e instanceof Error er) throw er;
            throw suspended;
        } finally {
            commitLock.unlock();
        }
        if (ev.shouldCommit()) { // only now: nothing that can fail stands between the durable uberblock and the state
            ev.pool = name();
            ev.txg = ub.txg();
            ev.waitNanos = t1 - t0;
            ev.buildNanos = t2 - t1;
            ev.writeNanos = t3 - t2;
            ev.flushNanos = t4 - t3;
            ev.uberblockNanos = t5 - t4;
            ev.commit();
        }
    }

    /**
     * Takes the pool lock, then the commit lock. A caller that does not hold the pool lock already waits for
     * the previous commit's I/O without it: waiting under the pool lock stopped every request for the
     * whole device write of the txg before (the open txg could not take writes while the previous one
     * synced). Never waits for the commit lock while holding the pool lock it took here, so the lock order
     * (pool, then commit) still holds.
     */
    private void lockForCommit() {
        for (;;) {
            lock.lock();
            if (lock.getHoldCount() > 1) { // the caller holds the pool lock: nothing to gain by letting it go
                commitLock.lock();
                return;
            }
            if (commitLock.tryLock()) return;
            lock.unlock();
            commitLock.lock(); // the previous commit's device writes, with requests going on meanwhile
            commitLock.unlock();
        }
    }

    private void fail(Throwable e) {
        io.discardQueued();
        io.allocator().abortCommit();
        suspended = e instanceof IOException ioe ? ioe : new IOException(e);
    }

    /**
     * The last commit changed something and left frees deferred: they become allocatable only once another
     * txg is durable, so the next {@link #commit()} writes one even when nothing changed (an idle pool would
     * otherwise hold a deletion's space until some unrelated change, and df would not show it). That commit's
     * own frees (the MOS it replaces) wait for the next real one: without this, an idle pool committed forever.
     * Under {@link #commitLock}.
     */
    private boolean releaseDue;

    /** Held by a commit from its start until its uberblock is durable; see {@link #commit()}. */
    ReentrantLock commitLock() { return commitLock; }

    private boolean anyDirty() {
        if (dir.tree().dirty()) return true;
        for (Dataset ds : open.values()) if (ds.tree.dirty()) return true;
        return false;
    }

    /** The dataset id of "pool/a/b", or 0. */
    public long lookup(String fullName) throws IOException {
        String[] parts = fullName.split("/");
        if (!parts[0].equals(name())) return 0;
        long id = ROOT_DATASET;
        for (int i = 1; i < parts.length && id != 0; i++) id = dir.child(id, parts[i]);
        return id;
    }

    /** Opens (or returns the already open) dataset {@code fullName}. */
    public Dataset dataset(String fullName) throws IOException {
        lock.lock();
        try {
            checkUsable();
            long id = lookup(fullName);
            if (id == 0) throw new IOException("dataset '" + fullName + "' does not exist");
            Dataset ds = open.get(id);
            if (ds == null) {
                DatasetHead h = dir.head(id);
                ds = new Dataset(this, id, fullName, h, new BTree(io, Snapshots.treeId(dir, id, h), h.root()));
                open.put(id, ds);
            }
            return ds;
        } finally {
            lock.unlock();
        }
    }

    /** Creates dataset "pool/.../name" (constant time: one head, one name entry) with local properties. */
    public Dataset createDataset(String fullName, Map<String, String> props) throws IOException {
        lock.lock();
        try {
            checkUsable();
            int slash = fullName.lastIndexOf('/');
            if (slash < 0) throw new IllegalArgumentException("dataset name must be POOL/NAME");
            String leaf = fullName.substring(slash + 1);
            if (!leaf.matches("[A-Za-z0-9_.:-]{1,200}")) throw new IllegalArgumentException("bad dataset name '" + leaf + "'");
            long parent = lookup(fullName.substring(0, slash));
            if (parent == 0) throw new IOException("parent of '" + fullName + "' does not exist");
            if (dir.child(parent, leaf) != 0) throw new IOException("dataset '" + fullName + "' already exists");
            Map<String, String> checked = new LinkedHashMap<>();
            for (var e : props.entrySet()) checked.put(e.getKey(), Properties.validate(e.getKey(), e.getValue()));
            long id = nextDatasetId++;
            dir.putHead(id, new DatasetHead(DatasetHead.FILESYSTEM, DatasetHead.SPACE_COUNTED, parent, 0, 0, 0, txg + 1,
                    System.currentTimeMillis(), BlockPointer.HOLE, DatasetHead.Space.ZERO, leaf));
            dir.addChild(parent, leaf, id);
            for (var e : checked.entrySet()) dir.setProperty(id, e.getKey(), e.getValue());
            changed = true;
            return dataset(fullName);
        } finally {
            lock.unlock();
        }
    }

    /** Destroys a dataset without children: its tree's blocks are freed (walks the tree once). */
    public void destroyDataset(String fullName, java.util.function.Consumer<Dataset> beforeFree) throws IOException {
        lock.lock();
        try {
            checkUsable();
            long id = lookup(fullName);
            if (id == 0) throw new IOException("dataset '" + fullName + "' does not exist");
            if (id == ROOT_DATASET) throw new IOException("the pool's root dataset is destroyed with the pool");
            if (!dir.children(id).isEmpty()) throw new IOException("dataset '" + fullName + "' has children");
            if (!dir.snapshots(id).isEmpty()) throw new IOException("dataset '" + fullName + "' has snapshots: destroy them first");
            Dataset ds = dataset(fullName);
            if (beforeFree != null) beforeFree.accept(ds);
            // a clone shares every block born up to its origin with that snapshot: only newer ones are its own
            long shared = ds.head.prevSnapshotTxg();
            ds.tree.freeBornAfter(shared, bp -> io.allocator().free(bp.dvas()), (k, v) -> {
                if (k.type() == 80) {
                    BlockPointer bp = BlockPointer.fromBytes(v);
                    if (bp.birth() > shared) io.allocator().free(bp.dvas());
                }
                return true;
            });
            open.remove(id);
            DatasetHead h = dir.head(id);
            dir.removeChild(h.parent(), h.name());
            dir.removeAll(id);
            changed = true;
        } finally {
            lock.unlock();
        }
    }

    /** Every dataset's full name, parents first. */
    public List<String> datasets() throws IOException {
        lock.lock();
        try {
            List<String> out = new ArrayList<>();
            walk(ROOT_DATASET, name(), out);
            return out;
        } finally {
            lock.unlock();
        }
    }

    private void walk(long id, String full, List<String> out) throws IOException {
        out.add(full);
        for (var e : dir.children(id).entrySet()) walk(e.getValue(), full + "/" + e.getKey(), out);
    }

    /** Effective value of {@code prop} for {@code ds}: local, inherited from a parent, or the default. */
    String property(Dataset ds, String prop) throws IOException {
        lock.lock();
        try {
            long id = ds.id;
            while (id != 0) {
                String v = dir.properties(id).get(prop);
                if (v != null) return v;
                if (Properties.LOCAL_ONLY.contains(prop)) break; // quota and reservation are not inherited
                id = dir.head(id).parent();
            }
            String d = Properties.DEFAULTS.get(prop);
            if (d == null) throw new IllegalArgumentException("unknown property '" + prop + "'");
            return d;
        } finally {
            lock.unlock();
        }
    }

    public void setProperty(String fullName, String prop, String value) throws IOException {
        lock.lock();
        try {
            checkUsable();
            long id = lookup(fullName);
            if (id == 0) throw new IOException("dataset '" + fullName + "' does not exist");
            String v = Properties.validate(prop, value);
            if (Properties.SIZES.contains(prop)) space.checkLimit(id, prop, Properties.bytesOrNone(v));
            dir.setProperty(id, prop, v);
            changed = true;
        } finally {
            lock.unlock();
        }
    }

    /** Drops a local property: the dataset inherits it again (zfs inherit). */
    public void inheritProperty(String fullName, String prop) throws IOException {
        lock.lock();
        try {
            checkUsable();
            long id = lookup(fullName);
            if (id == 0) throw new IOException("dataset '" + fullName + "' does not exist");
            dir.setProperty(id, prop, null);
            changed = true;
        } finally {
            lock.unlock();
        }
    }

    public Map<String, String> localProperties(String fullName) throws IOException {
        lock.lock();
        try {
            long id = lookup(fullName);
            if (id == 0) throw new IOException("dataset '" + fullName + "' does not exist");
            return dir.properties(id);
        } finally {
            lock.unlock();
        }
    }

    /** Commits, marks the labels EXPORTED (or DESTROYED) and closes the devices. */
    public void export(boolean destroy) throws IOException {
        lock.lock();
        try {
            commit();
            List<Label> next = new ArrayList<>();
            for (Label l : vdevs.labels()) next.add(l.withState(destroy ? Label.DESTROYED : Label.EXPORTED, txg));
            Labels.write(vdevs, next);
            vdevs.labels(next);
            closeDevices();
        } finally {
            lock.unlock();
        }
    }

    /** Marks the labels ACTIVE (after an import of an exported pool). */
    public void activate() throws IOException {
        lock.lock();
        try {
            checkUsable();
            List<Label> next = new ArrayList<>();
            for (Label l : vdevs.labels()) next.add(l.withState(Label.ACTIVE, txg));
            Labels.write(vdevs, next);
            vdevs.labels(next);
        } finally {
            lock.unlock();
        }
    }

    /** Label state of the pool as found at import (ACTIVE, EXPORTED). */
    public int labelState() { return vdevs.config().state(); }

    /** Device guids in index order. */
    public List<Long> deviceGuids() {
        List<Long> out = new ArrayList<>();
        for (Label.DeviceEntry d : vdevs.config().devices()) out.add(d.guid());
        return out;
    }

    private void closeDevices() {
        closed = true;
        List<BlockDevice> all = new ArrayList<>(vdevs.present());
        for (BlockDevice t : vdevs.top()) {
            if (t instanceof dev.ringfuse.pool.io.MirrorDevice m && m.target() != null) all.add(m.detachTarget());
        }
        for (BlockDevice d : all) {
            try {
                d.close();
            } catch (IOException e) {
                // closing is best effort: the data is committed already
            }
        }
    }

    /** Commits if possible and closes the devices (labels stay ACTIVE: the pool was not exported). */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) return;
            try {
                if (suspended == null) commit();
            } finally {
                closeDevices();
            }
        } finally {
            lock.unlock();
        }
    }
}
