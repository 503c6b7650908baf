package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.DeviceStats;
import dev.ringfuse.pool.io.MirrorDevice;
import dev.ringfuse.pool.space.Allocator;
import dev.ringfuse.pool.space.SpaceMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The pool's devices as its config describes them: the leaf devices by index (null when missing at import),
 * their labels, and the top-level vdevs block pointers name (a leaf of a stripe, or a {@link MirrorDevice} of
 * several leaves). Labels and uberblocks are per leaf; blocks are per top-level vdev.
 */
public final class Vdevs {
    private final BlockDevice[] leaves;
    private volatile List<Label> labels;
    private final BlockDevice[] top;
    /** Per leaf of a stripe: its counters live in {@link BlockIo}; set once the BlockIo exists. */
    private BlockIo io;

    private Vdevs(List<Label> labels, BlockDevice[] leaves, BlockDevice[] top) {
        this.labels = List.copyOf(labels);
        this.leaves = leaves;
        this.top = top;
    }

    /** Builds the top-level vdevs of {@code labels}' config over {@code leaves} (by device index, null = missing). */
    static Vdevs of(List<Label> labels, BlockDevice[] leaves) {
        Label c = labels.getFirst();
        BlockDevice[] top = new BlockDevice[c.vdevCount()];
        for (int v = 0; v < top.length; v++) {
            List<Integer> sides = c.sidesOf(v);
            if (c.isStripe()) {
                top[v] = leaves[sides.getFirst()];
                continue;
            }
            BlockDevice[] s = new BlockDevice[sides.size()];
            for (int k = 0; k < s.length; k++) s[k] = leaves[sides.get(k)];
            top[v] = new MirrorDevice(s, usableOf(c, v));
        }
        return new Vdevs(labels, leaves.clone(), top);
    }

    /** The smallest usable size among vdev {@code v}'s sides: its allocatable area ends below every side's labels. */
    private static long usableOf(Label c, int v) {
        long min = Long.MAX_VALUE;
        for (int i : c.sidesOf(v)) min = Math.min(min, c.devices().get(i).usableSize());
        return min;
    }

    /** One space map per top-level vdev. */
    Allocator newAllocator() {
        Label c = config();
        SpaceMap[] maps = new SpaceMap[top.length];
        for (int v = 0; v < maps.length; v++) maps[v] = new SpaceMap(Layout.ALLOC_START, Layout.allocEnd(usableOf(c, v)));
        return new Allocator(maps);
    }

    void attach(BlockIo io) { this.io = io; }

    BlockDevice[] top() { return top; }
    public Label config() { return labels.getFirst(); }
    List<Label> labels() { return labels; }
    void labels(List<Label> next) { labels = List.copyOf(next); }
    public int leafCount() { return leaves.length; }
    public BlockDevice leaf(int i) { return leaves[i]; }

    /** Top-level vdev of leaf {@code i} and its side number there. */
    public int vdevOf(int leaf) { return config().vdevs().get(leaf); }

    public int sideOf(int leaf) { return config().sidesOf(vdevOf(leaf)).indexOf(leaf); }

    /** The mirror leaf {@code i} belongs to, or null in a stripe. */
    public MirrorDevice mirrorOf(int leaf) {
        return top[vdevOf(leaf)] instanceof MirrorDevice m ? m : null;
    }

    /** Leaf {@code i}'s error counters. */
    public DeviceStats stats(int leaf) {
        MirrorDevice m = mirrorOf(leaf);
        return m != null ? m.stats(sideOf(leaf)) : io.stats(vdevOf(leaf));
    }

    /** ONLINE, FAULTED or UNAVAIL (missing at import). */
    public String state(int leaf) {
        MirrorDevice m = mirrorOf(leaf);
        if (m != null) return m.state(sideOf(leaf)).name();
        if (leaves[leaf] == null) return "UNAVAIL";
        return io != null && io.stats(vdevOf(leaf)).faulted ? "FAULTED" : "ONLINE";
    }

    /** True when leaf {@code i} takes writes (labels, uberblocks). */
    boolean writable(int leaf) {
        return leaves[leaf] != null && state(leaf).equals("ONLINE");
    }

    /** ONLINE when every leaf is, DEGRADED when some is not but every vdev can serve reads. */
    public String poolState() {
        for (BlockDevice t : top) if (t instanceof MirrorDevice m && !m.readable()) return "UNAVAIL";
        for (int i = 0; i < leaves.length; i++) if (!state(i).equals("ONLINE")) return "DEGRADED";
        return "ONLINE";
    }

    /**
     * A leaf's label or uberblock write failed: a mirror side is faulted (the pool goes on with the others),
     * a stripe leaf fails the operation.
     */
    void leafFailed(int leaf, IOException e) throws IOException {
        MirrorDevice m = mirrorOf(leaf);
        stats(leaf).writeErrors.incrementAndGet();
        if (m == null) throw e;
        m.fault(sideOf(leaf));
        if (!m.readable()) throw new IOException("every side of mirror " + vdevOf(leaf) + " failed: " + e.getMessage(), e);
    }

    /** Leaf {@code i} is now {@code device} (a replace): the caller promoted it in its mirror. */
    void replaceLeaf(int i, BlockDevice device) {
        leaves[i] = device;
    }

    /** Present leaves, for closing. */
    List<BlockDevice> present() {
        List<BlockDevice> out = new ArrayList<>();
        for (BlockDevice d : leaves) if (d != null) out.add(d);
        return out;
    }
}
