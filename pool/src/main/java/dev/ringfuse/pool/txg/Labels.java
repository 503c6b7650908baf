package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.format.MosBlock;
import dev.ringfuse.pool.format.Uberblock;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Reading and writing labels and uberblocks on every device (DESIGN.md, "Devices and labels"). */
final class Labels {
    private Labels() {}

    /** The valid label with the highest txg on {@code dev}; a clear error when none is valid. */
    static Label read(BlockDevice dev) throws IOException {
        long usable = Layout.usable(dev.size());
        if (usable < Layout.MIN_DEVICE) {
            throw new FormatException(dev.name() + ": " + dev.size() + " bytes is too small for a pool device (truncated?)");
        }
        Label best = null;
        FormatException why = null;
        for (int i = 0; i < 4; i++) {
            byte[] b = new byte[Layout.SECTOR];
            try {
                dev.read(Layout.labelOffset(i, usable), b, 0, b.length);
                Label l = Label.decode(b);
                if (l.usableSize() != usable) throw new FormatException("label records size " + l.usableSize() + ", device has " + usable + " (truncated or grown?)");
                if (best == null || l.txg() > best.txg()) best = l;
            } catch (FormatException e) {
                if (why == null || e.getMessage().contains("newer")) why = e;
            }
        }
        if (best == null) throw new FormatException(dev.name() + ": no valid pool label (" + why.getMessage() + ")");
        return best;
    }

    /**
     * Writes {@code labels[i]} on leaf i in two phases (L0+L2, flush, L1+L3, flush). Missing and faulted leaves
     * are skipped; a mirror side that fails is faulted (its vdev goes on with the others).
     */
    static void write(Vdevs v, List<Label> labels) throws IOException {
        for (int[] phase : new int[][] {{0, 2}, {1, 3}}) {
            for (int d = 0; d < labels.size(); d++) {
                if (!v.writable(d)) continue;
                byte[] b = labels.get(d).encode();
                long usable = labels.get(d).usableSize();
                try {
                    for (int l : phase) v.leaf(d).write(Layout.labelOffset(l, usable), b, 0, b.length);
                } catch (IOException e) {
                    v.leafFailed(d, e);
                }
            }
            flush(v);
        }
    }

    private static void flush(Vdevs v) throws IOException {
        for (int d = 0; d < v.leafCount(); d++) {
            if (!v.writable(d)) continue;
            try {
                v.leaf(d).flush();
            } catch (IOException e) {
                v.leafFailed(d, e);
            }
        }
    }

    /** Writes uberblock {@code ub} into its slot of every label of every working leaf, then flushes. */
    static void writeUberblock(Vdevs v, List<Label> labels, Uberblock ub) throws IOException {
        byte[] b = ub.encode();
        for (int d = 0; d < labels.size(); d++) {
            if (!v.writable(d)) continue;
            List<BlockDevice.Write> ws = new ArrayList<>();
            for (int l = 0; l < 4; l++) ws.add(new BlockDevice.Write(Layout.uberblockOffset(l, labels.get(d).usableSize(), ub.txg()), b));
            try {
                v.leaf(d).writeAll(ws);
            } catch (IOException e) {
                v.leafFailed(d, e);
            }
        }
        flush(v);
    }

    /** Every valid uberblock of this pool on every present leaf, newest first. */
    static List<Uberblock> uberblocks(Vdevs v, List<Label> labels, long poolGuid, long guidSum) {
        return uberblocks(v, labels, poolGuid, guidSum, new long[labels.size()]);
    }

    /** As above; {@code newest[d]} gets the txg of leaf d's newest valid uberblock (0: none). */
    static List<Uberblock> uberblocks(Vdevs v, List<Label> labels, long poolGuid, long guidSum, long[] newest) {
        List<Uberblock> out = new ArrayList<>();
        for (int d = 0; d < labels.size(); d++) {
            if (v.leaf(d) == null) continue;
            long usable = labels.get(d).usableSize();
            for (int l = 0; l < 4; l++) {
                byte[] ring = new byte[Layout.UBERBLOCK_SLOTS * Layout.SECTOR];
                try {
                    v.leaf(d).read(Layout.labelOffset(l, usable) + Layout.RING_OFFSET, ring, 0, ring.length);
                } catch (IOException e) {
                    continue;
                }
                for (int s = 0; s < Layout.UBERBLOCK_SLOTS; s++) {
                    try {
                        Uberblock u = Uberblock.decode(java.util.Arrays.copyOfRange(ring, s * Layout.SECTOR, (s + 1) * Layout.SECTOR));
                        if (u.poolGuid() == poolGuid && u.guidSum() == guidSum && Math.floorMod(u.txg(), Layout.UBERBLOCK_SLOTS) == s) {
                            out.add(u);
                            newest[d] = Math.max(newest[d], u.txg());
                        }
                    } catch (FormatException e) {
                        // an empty or torn slot
                    }
                }
            }
        }
        out.sort(Comparator.comparingLong(Uberblock::txg).reversed());
        return out;
    }

    /** Reads the MOS block of {@code ub} (verified through the uberblock's pointer). */
    static MosBlock mos(BlockIo io, Uberblock ub) throws IOException {
        BlockPointer bp = ub.mos();
        if (bp.isHole() || bp.type() != dev.ringfuse.pool.format.BlockType.MOS) throw new FormatException("uberblock: bad MOS pointer");
        MosBlock m = MosBlock.decode(io.read(bp));
        if (m.txg() != ub.txg()) throw new FormatException("MOS txg " + m.txg() + " does not match uberblock txg " + ub.txg());
        return m;
    }
}
