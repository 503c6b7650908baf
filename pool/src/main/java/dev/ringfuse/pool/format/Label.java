package dev.ringfuse.pool.format;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A device label's config block: the pool's identity, device list and how the devices form top-level vdevs
 * (DESIGN.md, "Config block"). {@code vdevs.get(i)} is the top-level vdev of device i: every device its own
 * (a stripe, format version 1) or several devices sharing one (a mirror, version 2).
 */
public record Label(int state, long poolGuid, long deviceGuid, long txg, long createdMs, long usableSize,
                    int deviceIndex, List<DeviceEntry> devices, String poolName, List<Integer> vdevs) {
    public static final long MAGIC = Layout.magic("RFPOOLLB");
    public static final int ACTIVE = 0, EXPORTED = 1, DESTROYED = 2;
    /** Config block offsets of the vdev layout (after the largest device list, 128 + 16 × 64). */
    static final int LAYOUT_AT = 1152, VDEV_COUNT_AT = 1156, VDEV_TABLE_AT = 1160;
    static final int LAYOUT_STRIPE = 0, LAYOUT_GROUPED = 1;
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,62}");

    /** One member device: its guid and usable size. */
    public record DeviceEntry(long guid, long usableSize) {}

    public Label {
        devices = List.copyOf(devices);
        checkName(poolName);
        if (devices.isEmpty() || devices.size() > Layout.MAX_DEVICES) throw new IllegalArgumentException("device count");
        vdevs = List.copyOf(vdevs == null ? stripe(devices.size()) : vdevs);
        checkVdevs(vdevs, devices.size());
    }

    /** A label of a stripe pool (every device its own top-level vdev). */
    public Label(int state, long poolGuid, long deviceGuid, long txg, long createdMs, long usableSize, int deviceIndex,
                 List<DeviceEntry> devices, String poolName) {
        this(state, poolGuid, deviceGuid, txg, createdMs, usableSize, deviceIndex, devices, poolName, null);
    }

    public static List<Integer> stripe(int n) {
        List<Integer> s = new ArrayList<>(n);
        for (int i = 0; i < n; i++) s.add(i);
        return s;
    }

    /** Top-level vdev numbers must be 0..k-1, each used by 1 to {@link Layout#MAX_MIRROR} devices. */
    private static void checkVdevs(List<Integer> vdevs, int n) {
        if (vdevs.size() != n) throw new IllegalArgumentException("vdev table has " + vdevs.size() + " entries for " + n + " devices");
        int k = 0;
        for (int v : vdevs) k = Math.max(k, v + 1);
        int[] count = new int[k];
        for (int v : vdevs) {
            if (v < 0) throw new IllegalArgumentException("vdev " + v);
            count[v]++;
        }
        for (int v = 0; v < k; v++) {
            if (count[v] == 0 || count[v] > Layout.MAX_MIRROR) throw new IllegalArgumentException("vdev " + v + " has " + count[v] + " devices");
        }
    }

    public static void checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad pool name '" + name + "': 1-63 of [A-Za-z0-9_.-], starting with a letter");
        }
    }

    /** True when every device is its own top-level vdev (written as format version 1). */
    public boolean isStripe() {
        for (int i = 0; i < vdevs.size(); i++) if (vdevs.get(i) != i) return false;
        return true;
    }

    /** Number of top-level vdevs. */
    public int vdevCount() {
        int k = 0;
        for (int v : vdevs) k = Math.max(k, v + 1);
        return k;
    }

    /** Device indices of top-level vdev {@code v}, in device order (its mirror sides). */
    public List<Integer> sidesOf(int v) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < vdevs.size(); i++) if (vdevs.get(i) == v) out.add(i);
        return out;
    }

    public Label withState(int newState, long newTxg) {
        return new Label(newState, poolGuid, deviceGuid, newTxg, createdMs, usableSize, deviceIndex, devices, poolName, vdevs);
    }

    /** The label device {@code index} of this pool carries (same config, that device's identity). */
    public Label forDevice(int index) {
        DeviceEntry e = devices.get(index);
        return new Label(state, poolGuid, e.guid(), txg, createdMs, e.usableSize(), index, devices, poolName, vdevs);
    }

    /** True when both describe the same configuration (devices, layout, state), whatever device carries them. */
    public boolean sameConfig(Label o) {
        return o.poolGuid == poolGuid && o.txg == txg && o.state == state && o.devices.equals(devices) && o.vdevs.equals(vdevs);
    }

    public byte[] encode() {
        ByteBuffer b = SelfChecked.allocate();
        boolean stripe = isStripe();
        b.putLong(0, MAGIC);
        b.putInt(8, stripe ? Layout.STRIPE_VERSION : Layout.VERSION);
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
        if (!stripe) {
            b.putInt(LAYOUT_AT, LAYOUT_GROUPED);
            b.putInt(VDEV_COUNT_AT, vdevCount());
            for (int i = 0; i < vdevs.size(); i++) b.put(VDEV_TABLE_AT + i, (byte) (int) vdevs.get(i));
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
        int version = b.getInt(8);
        int layout = b.getInt(LAYOUT_AT);
        List<Integer> vdevs;
        if (version == Layout.STRIPE_VERSION && layout == LAYOUT_STRIPE) {
            vdevs = stripe(n); // version 1 wrote zeros here: every pool of the previous code is a stripe
        } else if (version == 2 && layout == LAYOUT_GROUPED) {
            int k = b.getInt(VDEV_COUNT_AT);
            vdevs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int v = b.get(VDEV_TABLE_AT + i) & 0xFF;
                if (v >= k) throw new FormatException("label: device " + i + " in vdev " + v + " of " + k);
                vdevs.add(v);
            }
        } else {
            throw new FormatException("label: vdev layout " + layout + " does not match format version " + version);
        }
        try {
            return new Label(b.getInt(12), b.getLong(16), b.getLong(24), b.getLong(32), b.getLong(40), b.getLong(48),
                    idx, devs, name, vdevs);
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
