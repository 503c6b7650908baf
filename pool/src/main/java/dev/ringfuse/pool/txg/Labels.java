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

    /** Writes {@code labels[i]} on device i in two phases (L0+L2, flush, L1+L3, flush). */
    static void write(BlockIo io, List<Label> labels) throws IOException {
        for (int[] phase : new int[][] {{0, 2}, {1, 3}}) {
            for (int d = 0; d < labels.size(); d++) {
                byte[] b = labels.get(d).encode();
                long usable = labels.get(d).usableSize();
                for (int l : phase) io.writeRaw(d, Layout.labelOffset(l, usable), b);
            }
            io.flush();
        }
    }

    /** Writes uberblock {@code ub} into its slot of every label of every device, then flushes. */
    static void writeUberblock(BlockIo io, List<Label> labels, Uberblock ub) throws IOException {
        byte[] b = ub.encode();
        for (int d = 0; d < labels.size(); d++) {
            List<BlockDevice.Write> ws = new ArrayList<>();
            for (int l = 0; l < 4; l++) ws.add(new BlockDevice.Write(Layout.uberblockOffset(l, labels.get(d).usableSize(), ub.txg()), b));
            io.device(d).writeAll(ws);
        }
        io.flush();
    }

    /** Every valid uberblock of this pool on every device, newest first. */
    static List<Uberblock> uberblocks(BlockIo io, List<Label> labels, long poolGuid, long guidSum) {
        List<Uberblock> out = new ArrayList<>();
        for (int d = 0; d < labels.size(); d++) {
            long usable = labels.get(d).usableSize();
            for (int l = 0; l < 4; l++) {
                byte[] ring;
                try {
                    ring = io.readRaw(d, Layout.labelOffset(l, usable) + Layout.RING_OFFSET, Layout.UBERBLOCK_SLOTS * Layout.SECTOR);
                } catch (IOException e) {
                    continue;
                }
                for (int s = 0; s < Layout.UBERBLOCK_SLOTS; s++) {
                    try {
                        Uberblock u = Uberblock.decode(java.util.Arrays.copyOfRange(ring, s * Layout.SECTOR, (s + 1) * Layout.SECTOR));
                        if (u.poolGuid() == poolGuid && u.guidSum() == guidSum && Math.floorMod(u.txg(), Layout.UBERBLOCK_SLOTS) == s) out.add(u);
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
