package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.format.Label;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.DeviceStats;
import dev.ringfuse.pool.io.MirrorDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Rejoin;
import dev.ringfuse.pool.txg.Replace;
import dev.ringfuse.pool.txg.Scrub;
import dev.ringfuse.pool.txg.Vdevs;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongConsumer;

/**
 * `pool status`, `pool scrub` and `pool replace` on an open pool: run by the CLI on a pool nobody has open, or
 * by the process that has it mounted (through {@link PoolControl}), which holds the devices and the live
 * error counters.
 */
final class HealthAdmin {
    private HealthAdmin() {}

    /** Something that makes a progress consumer once the total is known (a bar, or lines to a socket). */
    interface Bars {
        LongConsumer start(long total);

        default void done() {}
    }

    /** Runs {@code pool-status|pool-scrub|pool-replace NAME ...}; returns the exit status. */
    static int execute(PoolRegistry r, Pool p, List<String> args, PrintStream out, Bars bars) throws IOException {
        return switch (args.getFirst()) {
            case "pool-status" -> {
                status(r, p, out);
                yield 0;
            }
            case "pool-scrub" -> scrub(r, p, out, bars);
            case "pool-replace" -> replace(r, p, args.get(2), Path.of(args.get(3)), out, bars);
            default -> throw new IllegalArgumentException("unknown pool command '" + args.getFirst() + "'");
        };
    }

    static void status(PoolRegistry r, Pool p, PrintStream out) throws IOException {
        Vdevs v = p.vdevs();
        List<Path> paths = r.devices(p.name());
        String state = v.poolState();
        out.printf("  pool: %s%n state: %s%n", p.name(), state);
        boolean behind = Rejoin.pending(p);
        boolean lost = false;
        for (int leaf = 0; leaf < v.leafCount(); leaf++) lost |= !v.state(leaf).equals("ONLINE") && !v.state(leaf).equals("RESILVERING");
        if (lost) {
            out.printf("status: one or more devices are missing or faulted; the pool serves from the remaining sides%n");
            out.printf("action: ringfuse pool replace %s OLD NEW%n", p.name());
        }
        if (behind) {
            out.printf("status: one or more devices came back after missing transaction groups; they take writes but serve no%n"
                    + "        reads until what they missed is copied onto them%n");
            out.printf("action: ringfuse pool scrub %s (resilvers only the blocks born while they were away, then scrubs)%n", p.name());
        }
        out.printf("  guid: %016x%n   txg: %d%n", p.guid(), p.txg());
        out.printf("  scan: %s%n", StatusFile.scrubLine(r, p.name()));
        out.printf("verify: %s%n%nconfig:%n", StatusFile.verifyLine(r, p.name()));
        out.printf("  %-44s %-11s %6s %6s %6s %9s%n", "NAME", "STATE", "READ", "WRITE", "CKSUM", "REPAIRED");
        out.printf("  %-44s %-11s%n", p.name(), state);
        Label c = v.config();
        for (int t = 0; t < c.vdevCount(); t++) {
            String indent = "    ";
            MirrorDevice m = p.io().device(t) instanceof MirrorDevice md ? md : null;
            if (m != null) {
                out.printf("    %-42s %-11s%n", "mirror-" + t, m.healthy() ? "ONLINE" : m.readable() ? "DEGRADED" : "UNAVAIL");
                indent = "      ";
            }
            for (int leaf : c.sidesOf(t)) {
                String name = leaf < paths.size() ? paths.get(leaf).toString() : "device " + leaf;
                DeviceStats s = v.stats(leaf);
                out.printf(Locale.ROOT, "%s%-" + (46 - indent.length()) + "s %-11s %6d %6d %6d %9s%n", indent, name, v.state(leaf),
                        s.readErrors.get(), s.writeErrors.get(), s.checksumErrors.get(), PoolAdmin.human(s.repairedBytes.get()));
                if (m != null && m.target() != null && m.targetSide() == c.sidesOf(t).indexOf(leaf)) {
                    out.printf("%s  %-" + (44 - indent.length()) + "s %-11s%n", indent, m.target().name(), "RESILVERING");
                }
            }
        }
    }

    static int scrub(PoolRegistry r, Pool p, PrintStream out, Bars bars) throws IOException {
        if (Rejoin.pending(p)) { // sides back after missing txgs first: until then they serve no reads and get no scrub
            LongConsumer bar = bars.start(Scrub.estimate(p));
            Scrub.Report caught;
            try {
                caught = Rejoin.resilver(p, bar);
            } finally {
                bars.done();
            }
            if (caught != null) {
                out.printf("resilvered pool '%s': %s copied (%d blocks born while a side was away) in %.1f s, %d unrepairable%n",
                        p.name(), PoolAdmin.human(caught.copied()), caught.blocks(), caught.millis() / 1000.0, caught.unrepairable());
                for (String e : caught.errors()) out.println("  " + e);
            }
        }
        LongConsumer bar = bars.start(Scrub.estimate(p));
        Scrub.Report rep;
        try {
            rep = Scrub.scrub(p, bar);
        } finally {
            bars.done();
        }
        String line = String.format(Locale.ROOT, "scrub repaired %s in %.1f s with %d unrepairable block(s) on %s (%d blocks, %s scanned)",
                PoolAdmin.human(rep.repaired()), rep.millis() / 1000.0, rep.unrepairable(), java.time.Instant.now(), rep.blocks(),
                PoolAdmin.human(rep.scanned()));
        StatusFile.saveScrub(r, p.name(), line);
        out.printf("scrubbed pool '%s': %d blocks, scanned %s, repaired %s, unrepairable %d, in %.1f s%n", p.name(), rep.blocks(),
                PoolAdmin.human(rep.scanned()), PoolAdmin.human(rep.repaired()), rep.unrepairable(), rep.millis() / 1000.0);
        for (String e : rep.errors()) out.println("  " + e);
        return rep.unrepairable() == 0 ? 0 : 2;
    }

    /** The leaf {@code old} names: a registered path, a device index or a device guid in hex. */
    static int leafOf(PoolRegistry r, Pool p, String old) throws IOException {
        List<Path> paths = r.devices(p.name());
        Path abs = Path.of(old).toAbsolutePath().normalize();
        for (int i = 0; i < paths.size(); i++) if (paths.get(i).toAbsolutePath().normalize().equals(abs)) return i;
        List<Long> guids = p.deviceGuids();
        for (int i = 0; i < guids.size(); i++) if (Long.toHexString(guids.get(i)).equalsIgnoreCase(old)) return i;
        if (old.matches("\\d+") && Integer.parseInt(old) < guids.size()) return Integer.parseInt(old);
        throw new IOException("'" + old + "' is not a device of pool '" + p.name() + "' (give its path as listed by pool status)");
    }

    static int replace(PoolRegistry r, Pool p, String old, Path fresh, PrintStream out, Bars bars) throws IOException {
        int leaf = leafOf(r, p, old);
        List<Path> paths = new ArrayList<>(r.devices(p.name()));
        if (!Files.exists(fresh)) {
            try (RandomAccessFile f = new RandomAccessFile(fresh.toFile(), "rw")) {
                f.setLength(p.vdevs().config().devices().get(leaf).usableSize()); // an image as large as the old side
            }
        }
        BlockDevice dev = UringBlockDevice.open(fresh);
        Scrub.Report rep;
        try {
            var map = p.io().allocator().map(p.vdevs().vdevOf(leaf));
            LongConsumer bar = bars.start(Math.max(1, map.capacity() - map.freeBytes()));
            try {
                rep = Replace.replace(p, leaf, dev, bar);
            } finally {
                bars.done();
            }
        } catch (IOException | RuntimeException e) {
            dev.close();
            throw e;
        }
        while (paths.size() <= leaf) paths.add(fresh);
        paths.set(leaf, fresh.toAbsolutePath());
        r.put(p.name(), paths);
        out.printf("replaced %s with %s in pool '%s': resilvered %s (%d blocks) in %.1f s, %d unrepairable%n", old, fresh, p.name(),
                PoolAdmin.human(rep.copied()), rep.blocks(), rep.millis() / 1000.0, rep.unrepairable());
        for (String e : rep.errors()) out.println("  " + e);
        return rep.unrepairable() == 0 ? 0 : 2;
    }
}
