package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.DeviceStats;
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

    /** Opens a registered pool. */
    public Pool open(String name) throws IOException {
        Pool p = Pool.open(openDevices(registry.devices(name)));
        if (!p.name().equals(name)) {
            p.close();
            throw new IOException("devices registered for '" + name + "' hold pool '" + p.name() + "'");
        }
        return p;
    }

    public void create(String name, List<Path> images, Long size) throws IOException {
        Label.checkName(name);
        if (registry.load().containsKey(name)) throw new IOException("pool '" + name + "' already exists");
        for (Path img : images) {
            if (!Files.exists(img)) {
                if (size == null) throw new IOException(img + " does not exist (give --size to create an image file)");
                try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
                    f.setLength(size); // sparse
                }
            }
        }
        try (Pool p = Pool.create(name, openDevices(images))) {
            registry.put(name, images.stream().map(Path::toAbsolutePath).toList());
            out.printf("created pool '%s' on %d device(s), %s%n", name, images.size(), human(p.io().allocator().capacity()));
        }
    }

    public void list() throws IOException {
        out.printf("%-16s %10s %10s %10s %5s  %s%n", "NAME", "SIZE", "ALLOC", "FREE", "CAP", "HEALTH");
        for (String name : registry.load().keySet()) {
            try (Pool p = open(name)) {
                var a = p.io().allocator();
                long used = a.capacity() - a.freeBytes();
                out.printf("%-16s %10s %10s %10s %4d%%  %s%n", name, human(a.capacity()), human(used), human(a.freeBytes()),
                        used * 100 / Math.max(1, a.capacity()), "ONLINE");
            } catch (IOException e) {
                out.printf("%-16s %10s %10s %10s %5s  UNAVAIL (%s)%n", name, "-", "-", "-", "-", e.getMessage());
            }
        }
    }

    public void status(String name) throws IOException {
        List<Path> paths = registry.devices(name);
        StatusFile last = StatusFile.of(registry, name);
        try (Pool p = open(name)) {
            out.printf("  pool: %s%n state: ONLINE%n  guid: %016x%n   txg: %d%n", name, p.guid(), p.txg());
            out.printf("verify: %s%n%n", last.describe());
            out.printf("  %-40s %-8s %6s %6s %6s%n", "DEVICE", "STATE", "READ", "WRITE", "CKSUM");
            for (int i = 0; i < paths.size(); i++) {
                DeviceStats s = p.io().stats(i);
                long[] saved = last.counts(i);
                out.printf("  %-40s %-8s %6d %6d %6d%n", paths.get(i), s.faulted ? "FAULTED" : "ONLINE",
                        s.readErrors.get() + saved[0], s.writeErrors.get() + saved[1], s.checksumErrors.get() + saved[2]);
            }
        }
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
            registry.put(name, devices.stream().map(Path::toAbsolutePath).toList());
            out.printf("imported pool '%s' (txg %d, %d dataset(s))%n", name, p.txg(), p.datasets().size());
        } finally {
            p.close();
        }
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
            long[][] counts = new long[p.io().deviceCount()][3];
            for (int i = 0; i < counts.length; i++) {
                DeviceStats s = p.io().stats(i);
                counts[i] = new long[] {s.readErrors.get(), s.writeErrors.get(), s.checksumErrors.get()};
            }
            StatusFile.save(registry, name, r.errors().size(), r.blocks(), counts);
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
