package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.BlockPointer;
import dev.ringfuse.pool.format.BlockType;
import dev.ringfuse.pool.format.Checksum;
import dev.ringfuse.pool.format.Compression;
import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.FormatException;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.space.Allocator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Blocks on top of devices: compression (kept only if it saves a sector), checksums, ditto copies of
 * metadata, and verification on every read with per-device error counters. Writes of a commit are
 * queued and submitted together by {@link #submit()} (all in flight at once, per device).
 */
public final class BlockIo {
    private static final int S = Layout.SECTOR;
    private final BlockDevice[] devices;
    private final DeviceStats[] stats;
    private final Allocator allocator;
    private final List<List<BlockDevice.Write>> queued;

    public BlockIo(BlockDevice[] devices, Allocator allocator) {
        this.devices = devices;
        this.allocator = allocator;
        this.stats = new DeviceStats[devices.length];
        this.queued = new ArrayList<>();
        for (int i = 0; i < devices.length; i++) {
            stats[i] = new DeviceStats();
            queued.add(new ArrayList<>());
        }
    }

    public Allocator allocator() { return allocator; }
    public DeviceStats stats(int device) { return stats[device]; }
    public BlockDevice device(int i) { return devices[i]; }
    public int deviceCount() { return devices.length; }

    /**
     * Prepares a block of {@code len} bytes of {@code data} and queues its writes; returns its pointer.
     * Metadata gets two copies. {@code useReserve}: commits and removals may dip into the reserve.
     */
    public BlockPointer write(BlockType type, byte[] data, int len, Compression comp, Checksum ck, int level,
                              long birth, long fill, boolean useReserve) throws IOException {
        byte[] stored = comp.compressIfSmaller(data, len, S);
        Compression used = stored == null ? Compression.OFF : comp;
        int psize = stored == null ? len : stored.length;
        byte[] padded = new byte[(int) Layout.roundUp(psize)];
        System.arraycopy(stored == null ? data : stored, 0, padded, 0, psize);
        byte[] sum = ck.compute(padded, 0, psize);
        int copies = type.metadata ? 2 : 1;
        Dva[] dvas = allocator.allocate(padded.length, copies, useReserve);
        if (dvas == null) throw new NoSpaceException("pool is full (" + padded.length + " bytes wanted)");
        for (Dva d : dvas) if (!d.isEmpty()) queue(d, padded);
        return new BlockPointer(dvas, len, psize, type, used, ck, level, birth, fill, sum);
    }

    /** Queues {@code data} (sector-padded) at a pre-allocated place (space log blocks, which record themselves). */
    public BlockPointer writeAt(Dva[] dvas, BlockType type, byte[] data, long birth) {
        byte[] sum = Checksum.CRC32C.compute(data, 0, data.length);
        for (Dva d : dvas) if (!d.isEmpty()) queue(d, data);
        return new BlockPointer(dvas, data.length, data.length, type, Compression.OFF, Checksum.CRC32C, 0, birth, 0, sum);
    }

    private synchronized void queue(Dva d, byte[] padded) {
        queued.get(d.device()).add(new BlockDevice.Write(d.offset(), padded));
    }

    /** Submits every queued write (each device's writes all in flight) and waits for them. */
    public void submit() throws IOException {
        List<List<BlockDevice.Write>> batches;
        synchronized (this) {
            batches = new ArrayList<>();
            for (List<BlockDevice.Write> q : queued) {
                batches.add(new ArrayList<>(q));
                q.clear();
            }
        }
        for (int i = 0; i < devices.length; i++) {
            if (batches.get(i).isEmpty()) continue;
            try {
                devices[i].writeAll(batches.get(i));
            } catch (IOException e) {
                stats[i].writeErrors.incrementAndGet();
                throw e;
            }
        }
    }

    /** Drops queued writes (after a failed commit). */
    public synchronized void discardQueued() {
        for (List<BlockDevice.Write> q : queued) q.clear();
    }

    /** Flushes every device. */
    public void flush() throws IOException {
        for (int i = 0; i < devices.length; i++) {
            try {
                devices[i].flush();
            } catch (IOException e) {
                stats[i].writeErrors.incrementAndGet();
                throw e;
            }
        }
    }

    /** Reads and verifies a block, trying each copy; returns its logical bytes. */
    public byte[] read(BlockPointer bp) throws IOException {
        if (bp.isHole()) throw new IllegalArgumentException("reading a hole");
        IOException last = null;
        for (Dva d : bp.dvas()) {
            if (d.isEmpty()) continue;
            if (d.device() >= devices.length) {
                last = new FormatException("block pointer names device " + d.device() + " of " + devices.length);
                continue;
            }
            byte[] raw = new byte[(int) d.asize()];
            try {
                devices[d.device()].read(d.offset(), raw, 0, raw.length);
            } catch (IOException e) {
                stats[d.device()].readErrors.incrementAndGet();
                last = e;
                continue;
            }
            if (bp.psize() > raw.length || !bp.checksumType().matches(bp.checksum(), raw, 0, bp.psize())) {
                stats[d.device()].checksumErrors.incrementAndGet();
                last = new ChecksumException("checksum mismatch in " + bp.type() + " block at "
                        + devices[d.device()].name() + ":" + d.offset());
                continue;
            }
            if (bp.compression() == Compression.OFF) {
                return raw.length == bp.lsize() ? raw : java.util.Arrays.copyOf(raw, bp.lsize());
            }
            try {
                return bp.compression().decompress(raw, bp.psize(), bp.lsize());
            } catch (FormatException e) {
                stats[d.device()].checksumErrors.incrementAndGet();
                last = e;
            }
        }
        throw last instanceof ChecksumException ? last : new ChecksumException("unreadable " + bp + ": " + last.getMessage());
    }

    /** Raw sector I/O for labels and uberblocks (not allocated, not checksummed by a parent). */
    public void writeRaw(int device, long offset, byte[] data) throws IOException {
        try {
            devices[device].write(offset, data, 0, data.length);
        } catch (IOException e) {
            stats[device].writeErrors.incrementAndGet();
            throw e;
        }
    }

    public byte[] readRaw(int device, long offset, int len) throws IOException {
        byte[] b = new byte[len];
        devices[device].read(offset, b, 0, len);
        return b;
    }
}
