package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** A device label's config block: the pool's identity and device list (DESIGN.md, "Config block"). */
public record Label(int state, long poolGuid, long deviceGuid, long txg, long createdMs, long usableSize,
                    int deviceIndex, List<DeviceEntry> devices, String poolName) {
    public static final long MAGIC = Layout.magic("RFPOOLLB");
    public static final int ACTIVE = 0, EXPORTED = 1, DESTROYED = 2;
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,62}");

    /** One member device: its guid and usable size. */
    public record DeviceEntry(long guid, long usableSize) {}

    public Label {
        devices = List.copyOf(devices);
        checkName(poolName);
        if (devices.isEmpty() || devices.size() > Layout.MAX_DEVICES) throw new IllegalArgumentException("device count");
    }

    public static void checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad pool name '" + name + "': 1-63 of [A-Za-z0-9_.-], starting with a letter");
        }
    }

    public Label withState(int newState, long newTxg) {
        return new Label(newState, poolGuid, deviceGuid, newTxg, createdMs, usableSize, deviceIndex, devices, poolName);
    }

    public byte[] encode() {
        ByteBuffer b = SelfChecked.allocate();
        b.putLong(0, MAGIC);
        b.putInt(8, Layout.VERSION);
        b.putInt(12, state);
        b.putLong(16, poolGuid);
        b.putLong(24, deviceGuid);
        b.putLong(32, txg);
        b.putLong(40, createdMs);
        b.putLong(48, usableSize);
        b.putInt(56, deviceIndex);
        b.putInt(60, devices.size());
        byte[] name = poolName.getBytes(StandardCharsets.UTF_8);
        b.put(64, name);
        for (int i = 0; i < devices.size(); i++) {
            b.putLong(128 + 16 * i, devices.get(i).guid());
            b.putLong(136 + 16 * i, devices.get(i).usableSize());
        }
        return SelfChecked.seal(b);
    }

    public static Label decode(byte[] bytes) throws FormatException {
        ByteBuffer b = SelfChecked.open(bytes, MAGIC, "label");
        int n = b.getInt(60);
        if (n < 1 || n > Layout.MAX_DEVICES) throw new FormatException("label: bad device count " + n);
        int idx = b.getInt(56);
        if (idx < 0 || idx >= n) throw new FormatException("label: bad device index " + idx);
        int len = 0;
        while (len < 64 && b.get(64 + len) != 0) len++;
        String name = new String(bytes, 64, len, StandardCharsets.UTF_8);
        List<DeviceEntry> devs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) devs.add(new DeviceEntry(b.getLong(128 + 16 * i), b.getLong(136 + 16 * i)));
        try {
            return new Label(b.getInt(12), b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40), b.getLong(48),
                    idx, devs, name);
        } catch (IllegalArgumentException e) {
            throw new FormatException("label: " + e.getMessage());
        }
    }

    public long guidSum() {
        long s = 0;
        for (DeviceEntry d : devices) s += d.guid();
        return s;
    }
}
