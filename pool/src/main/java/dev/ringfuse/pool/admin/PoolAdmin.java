package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The operations of `ringfuse pool ...` and `ringfuse fs ...`, printing zpool/zfs-like output. */
public final class PoolAdmin {
    private final PoolRegistry registry;
    private final PrintStream out;
    private final PrintStream err;

    public PoolAdmin(PoolRegistry registry, PrintStream out, PrintStream err) {
        this.registry = registry;
        this.out = out;
        this.err = err;
    }

    static List<BlockDevice> openDevices(List<Path> paths) throws IOException {
        List<BlockDevice> devs = new ArrayList<>();
        try {
            for (Path p : paths) devs.add(UringBlockDevice.open(p));
        } catch (IOException | RuntimeException e) {
            for (BlockDevice d : devs) d.close();
            throw e;
        }
        return devs;
    }

    /**
     * Opens a registered pool. A registered device that no longer exists is left out (a mirror then imports
     * DEGRADED); any other failure to open one (in use by a mount, permissions) fails the open.
     */
    public Pool open(String name) throws IOException {
        List<Path> present = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (Path d : registry.devices(name)) {
            if (Files.exists(d)) present.add(d);
            else missing.add(d + " does not exist");
        }
        if (present.isEmpty()) throw new IOException("pool '" + name + "': no device is there (" + String.join("; ", missing) + ")");
        Pool p;
        try {
            p = Pool.open(openDevices(present));
        } catch (IOException e) {
            if (missing.isEmpty()) throw e;
            throw new IOException(e.getMessage() + " (" + String.join("; ", missing) + ")", e);
        }
        if (!p.name().equals(name)) {
            p.close();
            throw new IOException("devices registered for '" + name + "' hold pool '" + p.name() + "'");
        }
        return p;
    }

    /**
     * Creates a pool: {@code spec} lists devices (a stripe) or groups {@code mirror DEV DEV [DEV...]} (each a
     * mirror; several make a stripe of mirrors), as zpool create does.
     */
    public void create(String name, List<Path> spec, Long size) throws IOException {
        Label.checkName(name);
        List<Path> images = new ArrayList<>();
        List<Integer> vdevs = new ArrayList<>();
        int k = 0, group = -1, groupSize = 0;
        boolean mirrors = false, singles = false;
        for (Path p : spec) {
            if (p.toString().equals("mirror")) {
                if (group >= 0 && groupSize < 2) throw new IllegalArgumentException("a mirror needs at least 2 devices");
                group = k++;
                groupSize = 0;
                mirrors = true;
                continue;
            }
            images.add(p);
            if (group >= 0) {
                vdevs.add(group);
                groupSize++;
            } else {
                vdevs.add(k++);
                singles = true;
            }
        }
        if (group >= 0 && groupSize < 2) throw new IllegalArgumentException("a mirror needs at least 2 devices");
        if (mirrors && singles) {
            throw new IllegalArgumentException("devices before the first 'mirror' would have no redundancy: put every device in a mirror");
        }
        if (images.isEmpty()) throw new IllegalArgumentException("no devices given");
        if (registry.load().containsKey(name)) throw new IOException("pool '" + name + "' already exists");
        for (Path img : images) {
            if (!Files.exists(img)) {
                if (size == null) throw new IOException(img + " does not exist (give --size to create an image file)");
                try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
                    f.setLength(size); // sparse
                }
            }
        }
        try (Pool p = Pool.create(name, openDevices(images), vdevs)) {
            registry.put(name, images.stream().map(Path::toAbsolutePath).toList());
            out.printf("created pool '%s' on %d device(s)%s, %s%n", name, images.size(), mirrors ? " (" + k + " mirror(s))" : "",
                    human(p.io().allocator().capacity()));
        }
    }

    public void list() throws IOException {
        out.printf("%-16s %10s %10s %10s %5s  %s%n", "NAME", "SIZE", "ALLOC", "FREE", "CAP", "HEALTH");
        for (String name : registry.load().keySet()) {
            try (Pool p = open(name)) {
                var a = p.io().allocator();
                long used = a.capacity() - a.freeBytes();
                out.printf("%-16s %10s %10s %10s %4d%%  %s%n", name, human(a.capacity()), human(used), human(a.freeBytes()),
                        used * 100 / Math.max(1, a.capacity()), p.vdevs().poolState());
            } catch (IOException e) {
                out.printf("%-16s %10s %10s %10s %5s  UNAVAIL (%s)%n", name, "-", "-", "-", "-", e.getMessage());
            }
        }
    }

    /** `pool status`: asked of the process that has the pool mounted (it has the live counters), else here. */
    public void status(String name) throws IOException {
        if (PoolControl.send(registry, name, List.of("pool-status", name), out, err) >= 0) return;
        try (Pool p = open(name)) {
            HealthAdmin.status(registry, p, out);
        }
    }

    /** `pool scrub`: done by the process that has the pool mounted, else here; 0 when nothing was lost. */
    public int scrub(String name) throws IOException {
        int rc = PoolControl.send(registry, name, List.of("pool-scrub", name), out, err);
        if (rc >= 0) return rc;
        try (Pool p = open(name)) {
            return HealthAdmin.scrub(registry, p, out, localBars());
        }
    }

    /** `pool replace NAME OLD NEW`: resilvers NEW into OLD's place (OLD may be missing). */
    public int replace(String name, String old, Path fresh) throws IOException {
        List<String> args = List.of("pool-replace", name, old, fresh.toAbsolutePath().toString());
        int rc = PoolControl.send(registry, name, args, out, err);
        if (rc >= 0) return rc;
        try (Pool p = open(name)) {
            return HealthAdmin.replace(registry, p, old, fresh, out, localBars());
        }
    }

    private HealthAdmin.Bars localBars() {
        return new HealthAdmin.Bars() {
            private Progress bar;

            @Override
            public java.util.function.LongConsumer start(long total) {
                bar = new Progress(err, total);
                return bar::update;
            }

            @Override
            public void done() {
                if (bar != null) bar.done();
            }
        };
    }

    public void export(String name) throws IOException {
        Pool p = open(name);
        p.export(false);
        registry.remove(name);
        out.printf("exported pool '%s'%n", name);
    }

    public void importPool(String name, List<Path> devices) throws IOException {
        if (registry.load().containsKey(name)) throw new IOException("pool '" + name + "' is already imported");
        Pool p = Pool.open(openDevices(devices));
        try {
            if (!p.name().equals(name)) throw new IOException("the devices hold pool '" + p.name() + "', not '" + name + "'");
            p.activate();
            registry.put(name, inLeafOrder(p));
            out.printf("imported pool '%s' (txg %d, %d dataset(s))%n", name, p.txg(), p.datasets().size());
        } finally {
            p.close();
        }
    }

    /**
     * The pool's device paths by device index, as the registry keeps them (status and replace name devices by
     * them); a device missing at import is listed as {@code /missing/GUID} (never there, so opens skip it).
     */
    static List<Path> inLeafOrder(Pool p) {
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < p.vdevs().leafCount(); i++) {
            BlockDevice d = p.vdevs().leaf(i);
            out.add(d != null ? Path.of(d.name()).toAbsolutePath() : Path.of("/missing/" + Long.toHexString(p.deviceGuids().get(i))));
        }
        return out;
    }

    /** The devices in {@code dir} (files and block devices) whose labels name pool {@code name}. */
    public List<Path> scan(String name, Path dir) throws IOException {
        List<Path> found = new ArrayList<>();
        try (var s = Files.list(dir)) {
            for (Path p : s.sorted().toList()) {
                if (Files.isDirectory(p)) continue;
                try (BlockDevice d = UringBlockDevice.open(p)) {
                    Label l = Pool.peekLabel(d);
                    if (l.poolName().equals(name) && l.state() != Label.DESTROYED) found.add(p);
                } catch (IOException | RuntimeException e) {
                    // not a pool device, too small, or in use
                }
            }
        }
        if (found.isEmpty()) throw new IOException("no devices of pool '" + name + "' found in " + dir);
        return found;
    }

    public void destroy(String name) throws IOException {
        Pool p = open(name);
        p.export(true);
        registry.remove(name);
        out.printf("destroyed pool '%s'%n", name);
    }

    /** Walks every block; returns the number of errors. Progress goes to {@code err}. */
    public int verify(String name) throws IOException {
        try (Pool p = open(name)) {
            var a = p.io().allocator();
            long total = Math.max(1, a.capacity() - a.freeBytes());
            long t0 = System.nanoTime();
            Progress bar = new Progress(err, total);
            PoolVerifier.Report r = PoolVerifier.verify(p, bar::update);
            bar.done();
            double secs = (System.nanoTime() - t0) / 1e9;
            out.printf("verified pool '%s': %d blocks, %s in %.1f s (%s/s), %d dataset(s), %d error(s)%n", name,
                    r.blocks(), human(r.bytes()), secs, human((long) (r.bytes() / Math.max(secs, 1e-3))), r.datasets(), r.errors().size());
            for (String e : r.errors()) out.println("  " + e);
            StatusFile.save(registry, name, r.errors().size(), r.blocks());
            return r.errors().size();
        }
    }

    // ---- datasets ----------------------------------------------------------------------------------------

    static String poolOf(String full) {
        int slash = full.indexOf('/');
        return slash < 0 ? full : full.substring(0, slash);
    }

    public void fsCreate(String full, Map<String, String> props) throws IOException {
        try (Pool p = open(poolOf(full))) {
            p.createDataset(full, props);
            p.commit();
            out.printf("created '%s'%n", full);
        }
    }

    public void fsList(String target) throws IOException {
        fsList(target, SpaceAdmin.DEFAULT_COLUMNS, false);
    }

    /**
     * `fs list [-o COLUMNS] [-p] [POOL|POOL/DS]`: one line per dataset (a dataset's descendants with it);
     * {@code parsable} prints exact bytes. A pool mounted by another process answers through its control socket.
     */
    public void fsList(String target, List<String> columns, boolean parsable) throws IOException {
        List<String> pools = target == null ? new ArrayList<>(registry.load().keySet()) : List.of(poolOf(target));
        out.println(SpaceAdmin.header(columns));
        for (String pn : pools) {
            fsCommand(pn, List.of("fs-list", target == null ? "-" : target, String.join(",", columns), parsable ? "p" : "-"));
        }
    }

    /** Sets properties of a dataset in one commit (through the mounting process when the pool is in use). */
    public void fsSet(String full, Map<String, String> props) throws IOException {
        List<String> args = new ArrayList<>(List.of("fs-set", full));
        for (var e : props.entrySet()) args.add(e.getKey() + "=" + e.getValue());
        fsCommand(poolOf(full), args);
    }

    public void fsGet(String full, List<String> names) throws IOException {
        fsGet(full, names, false);
    }

    /** `fs get [-p] PROP[,...]|all NAME`: properties and space figures (exact bytes with {@code parsable}). */
    public void fsGet(String full, List<String> names, boolean parsable) throws IOException {
        fsCommand(poolOf(full), List.of("fs-get", full, String.join(",", names), parsable ? "p" : "-"));
    }

    private void fsCommand(String pool, List<String> args) throws IOException {
        if (PoolControl.send(registry, pool, args, out) >= 0) return;
        try (Pool p = open(pool)) {
            SpaceAdmin.execute(p, args, out);
        }
    }

    public void fsDestroy(String full) throws IOException {
        try (Pool p = open(poolOf(full))) {
            p.destroyDataset(full, null);
            p.commit();
            out.printf("destroyed '%s'%n", full);
        }
    }

    /**
     * A snapshot, rollback or clone command (see {@link SnapshotAdmin#execute}): sent to the process that has
     * the pool mounted, else run on the pool opened here. `list` without a pool runs for every pool.
     */
    public int snapshotCommand(List<String> args) throws IOException {
        if (args.getFirst().equals("list") && args.size() == 1) {
            out.printf("%-40s %10s %10s %8s  %s%n", "NAME", "USED", "REFER", "TXG", "CREATION");
            for (String pool : registry.load().keySet()) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                PrintStream b = new PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8);
                snapshotCommand(List.of("list", pool), b);
                String[] lines = buf.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n");
                for (int i = 1; i < lines.length; i++) out.println(lines[i]);
            }
            return 0;
        }
        return snapshotCommand(args, out);
    }

    private int snapshotCommand(List<String> args, PrintStream to) throws IOException {
        String pool = SnapshotAdmin.poolOf(args);
        int rc = PoolControl.send(registry, pool, args, to);
        if (rc >= 0) return rc;
        try (Pool p = open(pool)) {
            return SnapshotAdmin.execute(p, args, to);
        }
    }

    /** Serves snapshot commands for {@code p} while this process has it open (a mount). */
    public PoolControl control(Pool p) throws IOException {
        return PoolControl.start(registry, p);
    }

    public static String human(long bytes) {
        String[] u = {"B", "K", "M", "G", "T", "P"};
        double v = bytes;
        int i = 0;
        while (v >= 1024 && i < u.length - 1) {
            v /= 1024;
            i++;
        }
        return i == 0 ? bytes + "B" : String.format(Locale.ROOT, "%.1f%s", v, u[i]);
    }
}
