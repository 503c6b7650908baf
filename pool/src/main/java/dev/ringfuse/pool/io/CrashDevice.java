package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.Layout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A test device that records writes and flushes and can lose power. Flushed writes live in a durable
 * {@link MemoryDevice}; writes since the last flush are pending (visible to reads, not yet durable). When the
 * write counter reaches the cut point the device dies: that write and every later call fail with an
 * IOException. {@link #afterPowerLoss} then builds the device as a reboot would find it: in
 * {@link Mode#PREFIX} every write issued before the cut reached the medium (in order); in
 * {@link Mode#SUBSET} an arbitrary subset of the unflushed sectors did (reordering, torn multi-sector writes).
 */
public final class CrashDevice implements BlockDevice {
    /** How unflushed writes survive the power cut. */
    public enum Mode { PREFIX, SUBSET }

    private static final int S = Layout.SECTOR;
    private final MemoryDevice durable;
    private final Map<Long, byte[]> pending = new LinkedHashMap<>();
    private final List<Object[]> pendingWrites = new ArrayList<>();
    private long cutAt = Long.MAX_VALUE;
    private long writes;
    private long flushes;
    private boolean dead;

    public CrashDevice(MemoryDevice durable) {
        this.durable = durable;
    }

    /** The device dies when write number {@code n} (0-based, counted from now on) is issued. */
    public synchronized void cutAtWrite(long n) {
        cutAt = writes + n;
    }

    public synchronized long writes() { return writes; }
    public synchronized long flushes() { return flushes; }
    public synchronized boolean dead() { return dead; }

    @Override public long size() { return durable.size(); }
    @Override public int alignment() { return S; }
    @Override public String name() { return "crash:" + durable.name(); }

    @Override
    public synchronized void read(long offset, byte[] dst, int off, int len) throws IOException {
        if (dead) throw new IOException(name() + ": power lost");
        durable.read(offset, dst, off, len);
        for (int i = 0; i < len; i += S) {
            byte[] p = pending.get((offset + i) / S);
            if (p != null) System.arraycopy(p, 0, dst, off + i, S);
        }
    }

    @Override
    public synchronized void write(long offset, byte[] src, int off, int len) throws IOException {
        checkRange(offset, len);
        if (dead || writes >= cutAt) {
            dead = true;
            throw new IOException(name() + ": power lost");
        }
        writes++;
        pendingWrites.add(new Object[] {offset, java.util.Arrays.copyOfRange(src, off, off + len)});
        for (int i = 0; i < len; i += S) {
            pending.put((offset + i) / S, java.util.Arrays.copyOfRange(src, off + i, off + i + S));
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        if (dead) throw new IOException(name() + ": power lost");
        for (var e : pending.entrySet()) durable.putSector(e.getKey(), e.getValue());
        pending.clear();
        pendingWrites.clear();
        flushes++;
    }

    /** The contents a reboot finds after the power cut (this device stays dead). */
    public synchronized MemoryDevice afterPowerLoss(Mode mode, Random rnd) {
        dead = true;
        MemoryDevice m = durable.copy(durable.name());
        if (mode == Mode.PREFIX) {
            for (Object[] w : pendingWrites) {
                long offset = (Long) w[0];
                byte[] data = (byte[]) w[1];
                for (int i = 0; i < data.length; i += S) {
                    m.putSector((offset + i) / S, java.util.Arrays.copyOfRange(data, i, i + S));
                }
            }
        } else {
            // each sector of each unflushed write independently: reordered and torn writes
            for (Object[] w : pendingWrites) {
                long offset = (Long) w[0];
                byte[] data = (byte[]) w[1];
                for (int i = 0; i < data.length; i += S) {
                    if (rnd.nextBoolean()) m.putSector((offset + i) / S, java.util.Arrays.copyOfRange(data, i, i + S));
                }
            }
        }
        return m;
    }

    @Override public void close() {}
}
