package dev.ringfuse.pool.io;

import dev.ringfuse.pool.format.Layout;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/** A sparse in-memory device of 4 KiB sectors (tests; the durable half of {@link CrashDevice}). */
public final class MemoryDevice implements BlockDevice {
    private static final int S = Layout.SECTOR;
    private final long size;
    private final String name;
    private final Map<Long, byte[]> sectors = new HashMap<>();

    public MemoryDevice(String name, long size) {
        this.name = name;
        this.size = size;
    }

    @Override public long size() { return size; }
    @Override public int alignment() { return S; }
    @Override public String name() { return name; }

    @Override
    public synchronized void read(long offset, byte[] dst, int off, int len) throws IOException {
        checkRange(offset, len);
        for (int i = 0; i < len; i += S) {
            byte[] s = sectors.get((offset + i) / S);
            if (s == null) java.util.Arrays.fill(dst, off + i, off + i + S, (byte) 0);
            else System.arraycopy(s, 0, dst, off + i, S);
        }
    }

    @Override
    public synchronized void write(long offset, byte[] src, int off, int len) throws IOException {
        checkRange(offset, len);
        for (int i = 0; i < len; i += S) {
            sectors.put((offset + i) / S, java.util.Arrays.copyOfRange(src, off + i, off + i + S));
        }
    }

    /** Writes one sector directly (used to replay a crash image and to inject corruption). */
    synchronized void putSector(long sector, byte[] data) {
        sectors.put(sector, data.clone());
    }

    /** A copy of this device's contents. */
    public synchronized MemoryDevice copy(String newName) {
        MemoryDevice m = new MemoryDevice(newName, size);
        for (var e : sectors.entrySet()) m.sectors.put(e.getKey(), e.getValue().clone());
        return m;
    }

    @Override public void flush() {}
    @Override public void close() {}
}
