package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Dva;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Self-healing below the block layer: rewriting bad copies of a block from a good one, the per-block work of a
 * scrub (every copy, every mirror side, read and checked separately) and of a resilver (every copy on one
 * mirror copied onto the device being resilvered, read back and checked). A rewrite only ever puts a block's
 * own verified bytes back at a place the block occupies (DESIGN.md, "Mirrors").
 */
public final class Healing {
    private Healing() {}

    /** Totals of a scrub or resilver; {@code errors} names the blocks no copy of which was good. */
    public static final class Counts {
        public long blocks, scanned, repaired, unrepairable, copied;
        public final List<String> errors = new ArrayList<>();

        /** Adds {@code o}'s totals (parallel walkers). */
        public synchronized void add(Counts o) {
            blocks += o.blocks;
            scanned += o.scanned;
            repaired += o.repaired;
            unrepairable += o.unrepairable;
            copied += o.copied;
            errors.addAll(o.errors);
        }
    }

    static List<Dva> add(List<Dva> bad, Dva d) {
        if (bad == null) bad = new ArrayList<>(2);
        bad.add(d);
        return bad;
    }

    /** Writes {@code good} (a verified copy) over the copies {@code bad} of the same block; returns bytes written. */
    static long rewrite(BlockIo io, List<Dva> bad, byte[] good) {
        long n = 0;
        for (Dva d : bad) {
            if (!io.allocator().isAllocated(d)) continue; // never write where the block no longer lives
            byte[] bytes = good.length == d.asize() ? good : Arrays.copyOf(good, (int) d.asize());
            BlockDevice dev = io.device(d.device());
            if (dev instanceof MirrorDevice m) {
                n += m.rewrite(d.offset(), bytes);
                continue;
            }
            try {
                dev.write(d.offset(), bytes, 0, bytes.length);
                io.stats(d.device()).repairedBytes.addAndGet(bytes.length);
                n += bytes.length;
            } catch (IOException e) {
                io.stats(d.device()).writeErrors.incrementAndGet();
            }
        }
        return n;
    }

    /**
     * Scrubs one block: reads every copy on every side, rewrites the bad ones from a good one. Returns the
     * logical bytes of a metadata block (the walk descends into it); null for file data, or when no copy is good
     * (counted unrepairable).
     */
    public static byte[] scrub(BlockIo io, BlockPointer bp, Counts c) throws IOException {
        c.blocks++;
        byte[] good = null;
        List<Dva> bad = null;
        for (Dva d : bp.dvas()) {
            if (d.isEmpty()) continue;
            if (d.device() >= io.deviceCount()) {
                c.errors.add(bp + ": names device " + d.device());
                continue;
            }
            BlockDevice dev = io.device(d.device());
            int len = (int) d.asize();
            if (dev instanceof MirrorDevice m) {
                MirrorDevice.Scrubbed s = m.scrub(d.offset(), len, r -> BlockIo.matches(bp, r));
                c.scanned += s.scanned();
                c.repaired += s.repaired();
                if (s.good() == null) bad = add(bad, d);
                else if (good == null) good = s.good();
                continue;
            }
            byte[] raw = new byte[len];
            c.scanned += len;
            try {
                dev.read(d.offset(), raw, 0, len);
            } catch (IOException e) {
                io.stats(d.device()).readErrors.incrementAndGet();
                bad = add(bad, d);
                continue;
            }
            if (BlockIo.matches(bp, raw)) {
                if (good == null) good = raw;
            } else {
                io.stats(d.device()).checksumErrors.incrementAndGet();
                bad = add(bad, d);
            }
        }
        if (good == null) {
            c.unrepairable++;
            c.errors.add("no good copy of " + bp);
            return null;
        }
        if (bad != null) c.repaired += rewrite(io, bad, good);
        if (!bp.type().metadata) return null;
        byte[] logical = BlockIo.decodeIfValid(bp, good);
        if (logical == null) throw new IOException("block " + bp + " matches its checksum but does not decompress");
        return logical;
    }

    /**
     * Catches up the RESILVERING sides that may lack {@code bp} (born at or after the txg they went missing):
     * each copy on such a mirror is read from a side whose copy verifies (healing the others), written to them
     * and read back. Blocks born before {@code from} are not visited, nor what they point to: a block is born no
     * earlier than any block below it (copy-on-write), so nothing under it changed while the sides were away.
     * Returns a metadata block's logical bytes to descend into, else null.
     */
    public static byte[] catchUp(BlockIo io, long from, BlockPointer bp, Counts c) throws IOException {
        if (bp.birth() < from && bp.type() != BlockType.MOS) return null; // the MOS is the walk's root: always read
        c.blocks++;
        byte[] good = null;
        for (Dva d : bp.dvas()) {
            if (d.isEmpty() || d.device() >= io.deviceCount() || !(io.device(d.device()) instanceof MirrorDevice m)) continue;
            List<Integer> behind = m.behind(bp.birth());
            if (behind.isEmpty()) continue;
            int len = (int) d.asize();
            byte[] raw = m.readVerified(d.offset(), len, r -> BlockIo.matches(bp, r), () -> true);
            c.scanned += len;
            if (raw == null) {
                c.unrepairable++;
                c.errors.add("no side holds a good copy of " + bp + " at " + d.offset() + " to resilver from");
                continue;
            }
            for (int side : behind) c.copied += m.copyTo(side, d.offset(), raw, r -> BlockIo.matches(bp, r));
            if (good == null) good = raw;
        }
        if (!bp.type().metadata) return null;
        if (good != null) return BlockIo.decodeIfValid(bp, good);
        try {
            return io.readUncached(bp); // no copy on a mirror with a side behind: read it to go on below
        } catch (IOException e) {
            c.unrepairable++;
            c.errors.add("cannot read " + bp + ": " + e.getMessage());
            return null;
        }
    }

    /**
     * Copies every copy of {@code bp} that lives on mirror {@code vdev} onto its resilver target: the bytes come
     * from a side whose copy verifies (healing the others), are written to the target and read back from it.
     * Returns the block's logical bytes when it is metadata (the walk descends into it), or null when it could
     * not be read. A copy on this mirror that no side holds is first rewritten on the sides from another (ditto)
     * copy of the block; only when there is none is it counted unrepairable.
     */
    public static byte[] resilver(BlockIo io, int vdev, BlockPointer bp, Counts c) throws IOException {
        c.blocks++;
        MirrorDevice m = (MirrorDevice) io.device(vdev);
        BlockDevice target = m.target();
        if (target == null) throw new IOException("the resilver target is gone");
        byte[] good = null;
        for (Dva d : bp.dvas()) {
            if (d.isEmpty() || d.device() != vdev) continue;
            int len = (int) d.asize();
            byte[] raw = m.readVerified(d.offset(), len, r -> BlockIo.matches(bp, r), () -> true);
            c.scanned += len;
            if (raw == null && healDitto(io, bp, c)) raw = m.readVerified(d.offset(), len, r -> BlockIo.matches(bp, r), () -> true);
            if (raw == null) {
                c.unrepairable++;
                c.errors.add("no side holds a good copy of " + bp + " at " + d.offset() + " to resilver from");
                continue;
            }
            target.write(d.offset(), raw, 0, len);
            byte[] back = new byte[len];
            target.read(d.offset(), back, 0, len);
            if (!BlockIo.matches(bp, back)) {
                m.targetStats().checksumErrors.incrementAndGet();
                throw new IOException(target.name() + ": the copy written at " + d.offset() + " does not read back");
            }
            c.copied += len;
            if (good == null) good = raw;
        }
        if (!bp.type().metadata) return null;
        if (good != null) return BlockIo.decodeIfValid(bp, good);
        try {
            return io.readUncached(bp); // its copies live on other vdevs
        } catch (IOException e) {
            c.errors.add("cannot read " + bp + ": " + e.getMessage());
            return null;
        }
    }

    /**
     * Rewrites the bad copies of a block that has ditto copies from a good one, as a scrub does (a degraded
     * mirror's surviving side with a bad sector under one copy of a metadata block); true when a copy was good.
     */
    private static boolean healDitto(BlockIo io, BlockPointer bp, Counts c) throws IOException {
        int copies = 0;
        for (Dva d : bp.dvas()) if (!d.isEmpty()) copies++;
        if (copies < 2) return false;
        Counts scrubbed = new Counts();
        scrub(io, bp, scrubbed);
        c.scanned += scrubbed.scanned;
        c.repaired += scrubbed.repaired;
        return scrubbed.unrepairable == 0;
    }
}
