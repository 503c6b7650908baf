package dev.ringfuse.pool.admin;

import dev.ringfuse.pool.txg.Dataset;
import dev.ringfuse.pool.txg.DatasetSpace;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.Properties;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * `ringfuse fs list|get|set` on an open pool: run in the CLI's process, or in the process that has the pool
 * mounted (through {@link PoolControl}, commands {@code fs-list}, {@code fs-get}, {@code fs-set}), so that a
 * quota set on a mounted dataset applies to the mount at once and the figures include its latest commit.
 */
public final class SpaceAdmin {
    /** Space figures per dataset, in the order `fs get all` shows them (zfs names). */
    public static final List<String> SPACE = List.of("used", "available", "referenced", "compressratio",
            "usedbysnapshots", "usedbydataset", "usedbychildren", "logicalreferenced");
    /** `fs list -o` column names (zfs's short names too) → property. */
    private static final Map<String, String> COLUMNS = new LinkedHashMap<>();

    static {
        for (String p : SPACE) COLUMNS.put(p, p);
        for (String p : Properties.DEFAULTS.keySet()) COLUMNS.put(p, p);
        COLUMNS.put("name", "name");
        COLUMNS.put("avail", "available");
        COLUMNS.put("refer", "referenced");
        COLUMNS.put("ratio", "compressratio");
        COLUMNS.put("usedsnap", "usedbysnapshots");
        COLUMNS.put("usedds", "usedbydataset");
        COLUMNS.put("usedchild", "usedbychildren");
        COLUMNS.put("lrefer", "logicalreferenced");
        COLUMNS.put("reserv", "reservation");
    }

    /** Columns of `fs list` without -o. */
    public static final List<String> DEFAULT_COLUMNS = List.of("name", "used", "avail", "refer", "ratio");

    private SpaceAdmin() {}

    /** The header line of `fs list` for {@code columns}. */
    static String header(List<String> columns) {
        StringBuilder b = new StringBuilder();
        for (String c : columns) {
            check(c);
            b.append(String.format(Locale.ROOT, c.equals("name") ? "%-32s" : " %10s", c.toUpperCase(Locale.ROOT)));
        }
        return b.toString();
    }

    /** True when {@code s} is "all" or a comma-separated list of property or column names (not a dataset name). */
    public static boolean isPropertyList(String s) {
        for (String item : s.split(",")) if (!item.equals("all") && !COLUMNS.containsKey(item.toLowerCase(Locale.ROOT))) return false;
        return true;
    }

    private static String check(String column) {
        String p = COLUMNS.get(column.toLowerCase(Locale.ROOT));
        if (p == null) throw new IllegalArgumentException("unknown column '" + column + "' (" + String.join(", ", COLUMNS.keySet()) + ")");
        return p;
    }

    /**
     * Runs {@code fs-list TARGET|- COLUMNS PARSABLE}, {@code fs-get NAME PROPS PARSABLE} or
     * {@code fs-set NAME PROP=VALUE...}; returns the exit status.
     */
    static int execute(Pool p, List<String> args, PrintStream out) throws IOException {
        switch (args.getFirst()) {
            case "fs-list" -> list(p, args.get(1).equals("-") ? null : args.get(1), List.of(args.get(2).split(",")),
                    args.get(3).equals("p"), out);
            case "fs-get" -> get(p, args.get(1), List.of(args.get(2).split(",")), args.get(3).equals("p"), out);
            case "fs-set" -> {
                Map<String, String> props = new LinkedHashMap<>();
                for (String kv : args.subList(2, args.size())) {
                    int eq = kv.indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("expected property=value, got '" + kv + "'");
                    props.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                set(p, args.get(1), props);
            }
            default -> throw new IllegalArgumentException("unknown fs command '" + args.getFirst() + "'");
        }
        return 0;
    }

    /**
     * Sets properties in one commit, all or none: when one is refused (a quota below the space used, a
     * reservation the pool cannot give) the ones set before it are put back before anything is committed.
     * The commit runs after the pool lock is released: it takes the lock for its cut only, so a mount's
     * requests go on during its writes and flush (any commit that cuts in between carries all of them).
     */
    static void set(Pool p, String full, Map<String, String> props) throws IOException {
        p.lock().lock();
        try {
            Map<String, String> before = p.localProperties(full);
            List<String> done = new ArrayList<>();
            try {
                for (var e : props.entrySet()) {
                    p.setProperty(full, e.getKey(), e.getValue());
                    done.add(e.getKey());
                }
            } catch (IOException | RuntimeException e) {
                for (String prop : done.reversed()) {
                    if (before.containsKey(prop)) p.setProperty(full, prop, before.get(prop));
                    else p.inheritProperty(full, prop);
                }
                throw e;
            }
        } finally {
            p.lock().unlock();
        }
        p.commit();
    }

    /** Rows of `fs list` for every dataset of {@code p} (or {@code target} and its descendants). */
    static void list(Pool p, String target, List<String> columns, boolean parsable, PrintStream out) throws IOException {
        p.commit(); // exact figures: dirty data of a mount counts once written (not under our lock: see set)
        p.lock().lock();
        try {
            for (String ds : p.datasets()) {
                if (target != null && target.contains("/") && !ds.equals(target) && !ds.startsWith(target + "/")) continue;
                Map<String, String> v = values(p, ds, parsable);
                StringBuilder b = new StringBuilder();
                for (String c : columns) {
                    String prop = check(c);
                    String val = prop.equals("name") ? ds : v.get(prop);
                    b.append(String.format(Locale.ROOT, prop.equals("name") ? "%-32s" : " %10s", val));
                }
                out.println(b);
            }
        } finally {
            p.lock().unlock();
        }
    }

    /** `fs get`: NAME PROPERTY VALUE SOURCE for each property named ("all": every one). */
    static void get(Pool p, String full, List<String> names, boolean parsable, PrintStream out) throws IOException {
        p.commit();
        p.lock().lock();
        try {
            Dataset d = p.dataset(full);
            Map<String, String> local = p.localProperties(full);
            Map<String, String> v = values(p, full, parsable);
            List<String> props = new ArrayList<>();
            if (names.isEmpty() || names.contains("all")) {
                props.addAll(SPACE);
                props.addAll(new TreeSet<>(Properties.DEFAULTS.keySet()));
            } else {
                for (String n : names) props.add(check(n));
            }
            out.printf("%-32s %-18s %-10s %s%n", "NAME", "PROPERTY", "VALUE", "SOURCE");
            for (String prop : props) {
                String val;
                String src;
                if (SPACE.contains(prop)) {
                    val = v.get(prop);
                    src = "-";
                } else {
                    val = Properties.SIZES.contains(prop) ? v.get(prop) : d.property(prop);
                    src = local.containsKey(prop) ? "local" : Properties.SIZES.contains(prop) || val.equals(Properties.DEFAULTS.get(prop)) ? "default" : "inherited";
                }
                out.printf("%-32s %-18s %-10s %s%n", full, prop, val, src);
            }
        } finally {
            p.lock().unlock();
        }
    }

    /** Every property's shown value for dataset {@code ds}: sizes human-readable, or exact bytes when parsable. */
    private static Map<String, String> values(Pool p, String ds, boolean parsable) throws IOException {
        Dataset d = p.dataset(ds);
        DatasetSpace.Usage u = p.space().usage(d.id());
        Map<String, String> v = new LinkedHashMap<>();
        v.put("used", size(u.used(), parsable));
        v.put("available", size(u.available(), parsable));
        v.put("referenced", size(u.referenced(), parsable));
        v.put("compressratio", String.format(Locale.ROOT, parsable ? "%.4f" : "%.2fx", u.compressRatio()));
        v.put("usedbysnapshots", size(u.usedBySnapshots(), parsable));
        v.put("usedbydataset", size(u.usedByDataset(), parsable));
        v.put("usedbychildren", size(u.usedByChildren(), parsable));
        v.put("logicalreferenced", size(u.logicalReferenced(), parsable));
        v.put("quota", u.quota() == 0 ? "none" : size(u.quota(), parsable));
        v.put("reservation", u.reservation() == 0 ? "none" : size(u.reservation(), parsable));
        for (String prop : Properties.DEFAULTS.keySet()) v.putIfAbsent(prop, d.property(prop));
        return v;
    }

    private static String size(long bytes, boolean parsable) {
        return parsable ? Long.toString(bytes) : PoolAdmin.human(bytes);
    }
}
