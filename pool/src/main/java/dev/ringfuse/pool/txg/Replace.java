package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.Healing;
import dev.ringfuse.pool.io.MirrorDevice;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * `pool replace`: resilvers a new device into a mirror side's place, then makes it a member (DESIGN.md,
 * "Replace and resilver"). The new device is wiped, attached as the mirror's resilver target (it takes every
 * write from then on), and every block of the newest txg that has a copy on that mirror is copied onto it from
 * a side whose copy verifies, then read back and checked. Only then does the config change: one commit with the
 * old config (everything written so far), the new device promoted, one commit whose uberblock carries the new
 * guid sum (on every leaf, the new one included), then the labels. A crash before that uberblock is durable
 * leaves the old config (the resilver is run again); after it, import takes the newest config on any leaf.
 */
public final class Replace {
    private Replace() {}

    /** Replaces leaf {@code leaf} (present or missing) by {@code device}; the pool owns the device on success. */
    public static Scrub.Report replace(Pool pool, int leaf, BlockDevice device, LongConsumer progress) throws IOException {
        Vdevs v = pool.vdevs();
        if (leaf < 0 || leaf >= v.leafCount()) throw new IOException("pool '" + pool.name() + "' has no device " + leaf);
        MirrorDevice m = v.mirrorOf(leaf);
        if (m == null) {
            throw new IOException("only a side of a mirror can be replaced: in a stripe there is no other copy to resilver from");
        }
        int vdev = v.vdevOf(leaf);
        long usable = Layout.usable(device.size());
        long need = pool.io().allocator().map(vdev).end();
        if (usable < Layout.MIN_DEVICE || Layout.allocEnd(usable) < need) {
            throw new IOException(device.name() + " is too small: it needs at least " + (need + 2 * Layout.LABEL_SIZE) + " bytes");
        }
        if (device.alignment() > Layout.SECTOR) throw new IOException(device.name() + ": block size " + device.alignment() + " > 4096");
        boolean others = false;
        for (int s = 0; s < m.sides(); s++) others |= s != v.sideOf(leaf) && m.state(s) == MirrorDevice.State.ONLINE;
        if (!others && m.state(v.sideOf(leaf)) != MirrorDevice.State.ONLINE) {
            throw new IOException("mirror " + vdev + " has no readable side to resilver from");
        }
        BlockIo io = pool.io();
        try {
            // the switch runs inside the resilver: no scrub may read the mirror's sides while they change
            return Scrub.maintain(pool, "resilver", progress, () -> {
                wipe(device, usable);
                pool.lock().lock();
                pool.commitLock().lock(); // no commit's writes in flight: every later one reaches the new device
                try {
                    m.attachTarget(v.sideOf(leaf), device);
                } finally {
                    pool.commitLock().unlock();
                    pool.lock().unlock();
                }
            }, (bp, c) -> Healing.resilver(io, vdev, bp, c), r -> {
                checkTarget(m, device);
                if (r.unrepairable() > 0) {
                    // the new side would lack those blocks: keep the old config rather than hide the loss
                    throw new IOException("resilver found " + r.unrepairable() + " block(s) with no good copy; the replace is abandoned "
                            + "(restore or remove the affected files, then replace again): " + String.join("; ", r.errors()));
                }
                device.flush();
                switchTo(pool, leaf, device);
            });
        } finally {
            if (m.target() == device) { // not promoted: the replace failed
                pool.lock().lock();
                pool.commitLock().lock();
                try {
                    m.detachTarget();
                } finally {
                    pool.commitLock().unlock();
                    pool.lock().unlock();
                }
            }
        }
    }

    /** Fails if a write or flush of the resilver target failed since it was attached: it may lack blocks. */
    private static void checkTarget(MirrorDevice m, BlockDevice device) throws IOException {
        if (m.targetFailure() != null) throw new IOException(device.name() + " failed during the resilver: " + m.targetFailure().getMessage());
    }

    /** Zeroes the device's label areas: nothing stale on it may be imported while it is only half resilvered. */
    private static void wipe(BlockDevice device, long usable) throws IOException {
        byte[] zero = new byte[(int) Layout.LABEL_SIZE];
        for (int l = 0; l < 4; l++) device.write(Layout.labelOffset(l, usable), zero, 0, zero.length);
        device.flush();
    }

    /** The config change, under the pool lock: commit, promote, commit with the new guid sum, labels. */
    private static void switchTo(Pool pool, int leaf, BlockDevice device) throws IOException {
        Vdevs v = pool.vdevs();
        MirrorDevice m = v.mirrorOf(leaf);
        pool.lock().lock();
        try {
            pool.commit();
            Label c = v.config();
            long guid = Pool.nonZero(new SecureRandom());
            long usable = Layout.usable(device.size());
            List<Label.DeviceEntry> entries = new ArrayList<>(c.devices());
            entries.set(leaf, new Label.DeviceEntry(guid, usable));
            Label next = new Label(c.state(), c.poolGuid(), guid, pool.txg() + 1, c.createdMs(), usable, leaf, entries,
                    c.poolName(), c.vdevs());
            List<Label> labels = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) labels.add(next.forDevice(i));
            BlockDevice old;
            pool.commitLock().lock();
            try {
                checkTarget(m, device); // the commit just made wrote to it too: a failure there is as bad
                old = m.promoteTarget();
                v.replaceLeaf(leaf, device);
                v.labels(labels);
            } finally {
                pool.commitLock().unlock();
            }
            pool.dirty();
            pool.commit(); // txg next.txg(): the first uberblock with the new guid sum
            Labels.write(v, labels);
            if (old != null) {
                try {
                    old.close();
                } catch (IOException e) {
                    // it is no longer part of the pool
                }
            }
        } finally {
            pool.lock().unlock();
        }
    }
}
