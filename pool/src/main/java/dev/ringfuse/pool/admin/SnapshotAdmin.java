package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Snapshots;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * `ringfuse snapshot|rollback|clone` on an open pool: run in the CLI's process when the pool is not in use,
 * or in the process that has it mounted (through {@link PoolControl}), so that snapshots of a mounted
 * dataset are taken at its own txg boundary and a rollback reaches the mount's caches.
 */
public final class SnapshotAdmin {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

    private SnapshotAdmin() {}

    /** The pool a command's arguments are about ("pool/fs@snap" → "pool"). */
    public static String poolOf(List<String> args) {
        if (args.size() < 2) throw new IllegalArgumentException("missing dataset name");
        String n = args.get(1);
        int cut = n.length();
        for (char c : new char[] {'/', '@'}) if (n.indexOf(c) >= 0) cut = Math.min(cut, n.indexOf(c));
        return n.substring(0, cut);
    }

    /**
     * Runs one command: {@code snapshot NAME@SNAP}, {@code list [NAME]}, {@code destroy NAME@SNAP},
     * {@code rollback NAME@SNAP}, {@code clone NAME@SNAP TARGET [PROP=VALUE...]}, {@code origin NAME}.
     * Returns the exit status.
     */
    public static int execute(Pool p, List<String> args, PrintStream out) throws IOException {
        switch (args.getFirst()) {
            case "snapshot" -> {
                long t0 = System.nanoTime();
                Snapshots.create(p, args.get(1));
                out.printf("snapshot '%s' taken at txg %d in %.1f ms%n", args.get(1), p.txg(), (System.nanoTime() - t0) / 1e6);
            }
            case "list" -> {
                String fs = args.size() > 1 && args.get(1).contains("/") ? args.get(1) : null;
                out.printf("%-40s %10s %10s %8s  %s%n", "NAME", "USED", "REFER", "TXG", "CREATION");
                for (Snapshots.Info i : Snapshots.list(p, fs)) {
                    out.printf("%-40s %10s %10s %8d  %s%n", i.name(), PoolAdmin.human(i.used()), PoolAdmin.human(i.referenced()),
                            i.txg(), TIME.format(Instant.ofEpochMilli(i.creationMs())));
                }
            }
            case "destroy" -> {
                long freed = Snapshots.destroy(p, args.get(1));
                out.printf("destroyed '%s': freed %d bytes (%s)%n", args.get(1), freed, PoolAdmin.human(freed));
            }
            case "rollback" -> {
                Snapshots.rollback(p, args.get(1));
                out.printf("rolled '%s' back to '%s' (txg %d)%n", args.get(1).substring(0, args.get(1).indexOf('@')), args.get(1), p.txg());
            }
            case "clone" -> {
                if (args.size() < 3) throw new IllegalArgumentException("clone takes NAME@SNAP TARGET");
                Map<String, String> props = new LinkedHashMap<>();
                for (String kv : args.subList(3, args.size())) {
                    int eq = kv.indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("expected property=value, got '" + kv + "'");
                    props.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                Snapshots.clone(p, args.get(1), args.get(2), props);
                out.printf("cloned '%s' as '%s'%n", args.get(1), args.get(2));
            }
            case "origin" -> {
                String o = Snapshots.origin(p, args.get(1));
                out.println(o == null ? "-" : o);
            }
            case "fs-list", "fs-get", "fs-set" -> {
                return SpaceAdmin.execute(p, args, out);
            }
            default -> throw new IllegalArgumentException("unknown snapshot command '" + args.getFirst() + "'");
        }
        return 0;
    }
}
