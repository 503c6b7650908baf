package dev.ringfuse.pool.space;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.NoSpaceException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only log of allocations and frees (DESIGN.md, "Space"): one block per txg, newest first,
 * each pointing at its predecessor. Replay at import rebuilds every device's free extents.
 */
public final class SpaceLog {
    static final int MAGIC = 0x4C534652; // "RFSL"
    static final int HEADER = 144;
    static final int RECORD = 24;
    public static final int ALLOC = 1, FREE = 2;

    private SpaceLog() {}

    /**
     * The committed chain's pointers as the pool keeps them in memory, newest first ({@code length} blocks): a
     * condense frees them without reading the chain back from the devices. Reading it back, one synchronous read
     * per block under the pool lock, made every 256th commit take 26–38 ms instead of about 1 (DESIGN.md, "Space").
     */
    public static final class Chain { // not a record: its equals/hashCode/toString would recurse down the chain
        public static final Chain EMPTY = new Chain(BlockPointer.HOLE, null, 0);
        private final BlockPointer head;
        private final Chain older;
        private final long length;

        private Chain(BlockPointer head, Chain older, long length) {
            this.head = head;
            this.older = older;
            this.length = length;
        }

        /** The newest block (a hole for the empty chain). */
        public BlockPointer head() { return head; }

        /** The chain without its newest block. */
        public Chain older() { return older; }

        public long length() { return length; }

        /** This chain with {@code newest} (whose predecessor is this chain's head) in front. */
        public Chain then(BlockPointer newest) { return new Chain(newest, this, length + 1); }

        @Override
        public String toString() { return "space log chain of " + length + " block(s)"; }
    }

    /**
     * Writes txg's block (its own two copies included among the allocations) after {@code prev}; returns
     * its pointer. Call after every other allocation and free of the txg.
     */
    public static BlockPointer append(BlockIo io, long txg, BlockPointer prev) throws IOException {
        Allocator a = io.allocator();
        int n = a.allocatedThisTxg().size() + a.freedThisTxg().size() + 2;
        long size = Layout.roundUp(HEADER + (long) RECORD * n);
        Dva[] dvas = a.allocate(size, 2, true);
        if (dvas == null) throw new NoSpaceException("no room for the space log");
        List<Allocator.Extent> allocs = a.allocatedThisTxg();
        List<Allocator.Extent> frees = a.freedThisTxg();
        ByteBuffer b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, MAGIC);
        b.putInt(4, allocs.size() + frees.size());
        b.putLong(8, txg);
        prev.encode(b, 16);
        int at = HEADER;
        for (Allocator.Extent e : allocs) at = put(b, at, ALLOC, e);
        for (Allocator.Extent e : frees) at = put(b, at, FREE, e);
        return io.writeAt(dvas, BlockType.SPACE_LOG, b.array(), txg);
    }

    /** The chain grows by one block per txg; past this many blocks it is condensed. */
    private static volatile int condenseAfter = Integer.getInteger("pool.spacelog.condense", 256);

    public static int condenseAfter() { return condenseAfter; }

    /** Tests condense often, so that power cuts hit condensing too. */
    public static void condenseAfter(int blocks) { condenseAfter = blocks; }

    /**
     * Writes a condensed chain of one block: ALLOC records of everything the committed state of txg holds,
     * its own copies included, with no predecessor. The old chain's blocks are freed in this txg (the
     * previous uberblock still needs them until this one is durable). Call in place of {@link #append}.
     */
    public static BlockPointer condense(BlockIo io, long txg, Chain old) throws IOException {
        Allocator a = io.allocator();
        for (Chain c = old; c.length() > 0; c = c.older()) a.free(c.head().dvas());
        SpaceMap[] view = a.committedView();
        List<Allocator.Extent> extents = new ArrayList<>();
        for (int d = 0; d < view.length; d++) {
            int dev = d;
            view[d].forEachAllocated((off, len) -> extents.add(new Allocator.Extent(dev, off, len)));
        }
        long size = Layout.roundUp(HEADER + (long) RECORD * (extents.size() + 2));
        Dva[] dvas = a.allocate(size, 2, true);
        if (dvas == null) throw new NoSpaceException("no room to condense the space log");
        for (Dva d : dvas) if (!d.isEmpty()) extents.add(new Allocator.Extent(d.device(), d.offset(), d.asize()));
        ByteBuffer b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, MAGIC);
        b.putInt(4, extents.size());
        b.putLong(8, txg);
        BlockPointer.HOLE.encode(b, 16);
        int at = HEADER;
        for (Allocator.Extent e : extents) at = put(b, at, ALLOC, e);
        return io.writeAt(dvas, BlockType.SPACE_LOG, b.array(), txg);
    }

    private static int put(ByteBuffer b, int at, int op, Allocator.Extent e) {
        b.putInt(at, e.device()).putInt(at + 4, op).putLong(at + 8, e.offset()).putLong(at + 16, e.length());
        return at + RECORD;
    }

    /** Replays the chain ending at {@code head} into {@code a} (which starts all free); returns the chain. */
    public static Chain replay(BlockIo io, BlockPointer head, Allocator a) throws IOException {
        List<byte[]> chain = new ArrayList<>();
        List<BlockPointer> pointers = new ArrayList<>();
        BlockPointer bp = head;
        while (!bp.isHole()) {
            if (bp.type() != BlockType.SPACE_LOG) throw new FormatException("space log: wrong block type " + bp.type());
            byte[] block = io.read(bp);
            ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
            if (block.length < HEADER || b.getInt(0) != MAGIC) throw new FormatException("space log: bad magic");
            chain.add(block);
            pointers.add(bp);
            if (chain.size() > 10_000_000) throw new FormatException("space log: chain too long (a loop?)");
            bp = BlockPointer.decode(b, 16);
        }
        for (int i = chain.size() - 1; i >= 0; i--) {
            ByteBuffer b = ByteBuffer.wrap(chain.get(i)).order(ByteOrder.LITTLE_ENDIAN);
            int count = b.getInt(4);
            if (count < 0 || HEADER + (long) count * RECORD > chain.get(i).length) throw new FormatException("space log: bad count");
            for (int r = 0; r < count; r++) {
                int at = HEADER + r * RECORD;
                try {
                    a.replay(b.getInt(at + 4), b.getInt(at), b.getLong(at + 8), b.getLong(at + 16));
                } catch (IllegalStateException e) {
                    throw new FormatException("space log inconsistent: " + e.getMessage());
                }
            }
        }
        Chain c = Chain.EMPTY;
        for (int i = pointers.size() - 1; i >= 0; i--) c = c.then(pointers.get(i));
        return c;
    }
}
