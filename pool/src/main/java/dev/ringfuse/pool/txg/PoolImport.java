package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.format.MosBlock;
import dev.ringfuse.pool.format.Uberblock;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.MirrorDevice;
import dev.ringfuse.pool.space.Allocator;
import dev.ringfuse.pool.space.SpaceLog;
import dev.ringfuse.pool.tree.BTree;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Import (DESIGN.md, "Import"): read every device's label, take the newest config the devices carry (a
 * replace rewrites labels, and a crash can leave leaves with the old and the new one), place each device by
 * its guid in that config's device list, accept a mirror with sides missing (DEGRADED) but not a stripe device
 * or a whole mirror missing, then the newest uberblock whose guid sum matches that config and whose MOS block
 * verifies. If the newest config has no such uberblock (a replace cut before its first commit), the previous
 * config is tried. Devices the chosen config does not list are closed and ignored (a replaced device).
 */
final class PoolImport {
    private PoolImport() {}

    static Pool open(List<BlockDevice> devices) throws IOException {
        try {
            return openOrThrow(devices);
        } catch (IOException | RuntimeException e) {
            for (BlockDevice d : devices) {
                try {
                    d.close();
                } catch (IOException ignored) {
                    // the import error is what matters
                }
            }
            throw e;
        }
    }

    private static Pool openOrThrow(List<BlockDevice> devices) throws IOException {
        if (devices.isEmpty()) throw new IOException("no devices given");
        Map<BlockDevice, Label> found = new IdentityHashMap<>();
        IOException unreadable = null;
        Label first = null;
        for (BlockDevice d : devices) {
            Label l;
            try {
                l = Labels.read(d);
            } catch (IOException e) {
                if (unreadable == null) unreadable = e;
                continue; // no label or unreadable: a mirror can do without it; a stripe reports the device missing below
            }
            if (l.state() == Label.DESTROYED) throw new FormatException(d.name() + ": pool '" + l.poolName() + "' was destroyed");
            if (first == null) first = l;
            else if (l.poolGuid() != first.poolGuid()) {
                throw new FormatException(d.name() + " belongs to pool '" + l.poolName() + "', not '" + first.poolName() + "'");
            }
            if (l.devices().get(l.deviceIndex()).guid() != l.deviceGuid()) throw new FormatException(d.name() + ": label inconsistent");
            found.put(d, l);
        }
        if (first == null) throw unreadable;
        List<Label> configs = new ArrayList<>();
        for (Label l : found.values()) if (configs.stream().noneMatch(c -> c.sameConfig(l))) configs.add(l);
        configs.sort(Comparator.comparingLong(Label::txg).reversed());
        IOException why = null;
        for (Label config : configs) {
            try {
                return openWith(config, devices, found);
            } catch (IOException e) {
                if (why == null) why = e; // the newest config's reason is the one to report
            }
        }
        throw why;
    }

    private static Pool openWith(Label config, List<BlockDevice> devices, Map<BlockDevice, Label> found) throws IOException {
        int n = config.devices().size();
        BlockDevice[] leaves = new BlockDevice[n];
        boolean stale = false;
        for (BlockDevice d : devices) {
            Label l = found.get(d);
            if (l == null) continue;
            for (int i = 0; i < n; i++) {
                if (config.devices().get(i).guid() != l.deviceGuid()) continue;
                if (leaves[i] != null) throw new FormatException(d.name() + " and " + leaves[i].name() + " are the same device of the pool");
                leaves[i] = d;
                if (!l.sameConfig(config)) stale = true;
            }
        }
        for (int v = 0; v < config.vdevCount(); v++) {
            List<Integer> sides = config.sidesOf(v);
            if (sides.stream().anyMatch(i -> leaves[i] != null)) continue;
            int i = sides.getFirst();
            throw new FormatException("pool '" + config.poolName() + "' has " + n + " devices; device " + i + " (guid "
                    + Long.toHexString(config.devices().get(i).guid()) + ") is missing"
                    + (sides.size() > 1 ? " with every other side of its mirror" : ""));
        }
        List<Label> labels = new ArrayList<>(n);
        for (int i = 0; i < n; i++) labels.add(config.forDevice(i));
        Vdevs vdevs = Vdevs.of(labels, leaves);
        BlockIo probe = new BlockIo(vdevs.top(), vdevs.newAllocator());
        vdevs.attach(probe);
        long[] newest = new long[n];
        List<Uberblock> ubs = Labels.uberblocks(vdevs, labels, config.poolGuid(), config.guidSum(), newest);
        if (ubs.isEmpty()) throw new FormatException("pool '" + config.poolName() + "': no valid uberblock");
        rejoin(vdevs, leaves, newest, ubs.getFirst().txg());
        IOException why = null;
        for (Uberblock ub : ubs.subList(0, Math.min(2, ubs.size()))) {
            try {
                MosBlock mos = Labels.mos(probe, ub);
                Allocator fresh = vdevs.newAllocator();
                BlockIo io = new BlockIo(vdevs.top(), fresh);
                vdevs.attach(io);
                SpaceLog.Chain chain = SpaceLog.replay(io, mos.spaceLog(), fresh);
                DatasetDir dir = new DatasetDir(new BTree(io, 0, mos.directoryRoot()));
                if (dir.head(Pool.ROOT_DATASET) == null) throw new FormatException("dataset directory has no root dataset");
                Pool p = new Pool(io, vdevs, dir, ub.txg(), ub.mos(), chain, mos.nextDatasetId());
                // heads of a pool written before the space counters existed get them now (kept by the next commit)
                if (SpaceWalk.upgrade(p)) p.markChanged();
                closeOthers(devices, leaves);
                if (stale) Labels.write(vdevs, labels); // leaves a replace left with the old config catch up
                return p;
            } catch (IOException e) {
                if (why == null) why = e;
            }
        }
        throw new FormatException("pool '" + config.poolName() + "': newest transaction groups unreadable: " + why.getMessage());
    }

    /**
     * Mirror sides whose newest uberblock is older than the pool's missed the txgs after it (missing at an
     * import, or faulted): they come back RESILVERING, caught up by {@link Rejoin} with the blocks born since.
     * A side with uberblock U holds every block born up to U: a commit writes a side's uberblock only after
     * its blocks reached it, and no uberblock goes to a side that is missing, faulted or still catching up.
     * Before any read, so that none is served by a side that lacks the block. A mirror whose present sides
     * are all behind keeps them ONLINE (they are all it has; reads heal what they can, as before).
     */
    private static void rejoin(Vdevs vdevs, BlockDevice[] leaves, long[] newest, long txg) {
        for (int leaf = 0; leaf < leaves.length; leaf++) {
            MirrorDevice m = vdevs.mirrorOf(leaf);
            if (leaves[leaf] == null || m == null || newest[leaf] >= txg) continue;
            boolean current = false;
            for (int other : vdevs.config().sidesOf(vdevs.vdevOf(leaf))) current |= leaves[other] != null && newest[other] >= txg;
            if (current) m.rejoin(vdevs.sideOf(leaf), newest[leaf] + 1);
        }
    }

    /** Closes the devices given that the config does not list (a replaced device, a label-less one). */
    private static void closeOthers(List<BlockDevice> devices, BlockDevice[] leaves) {
        for (BlockDevice d : devices) {
            boolean member = false;
            for (BlockDevice l : leaves) member |= l == d;
            if (member) continue;
            try {
                d.close();
            } catch (IOException ignored) {
                // not part of the pool
            }
        }
    }
}
