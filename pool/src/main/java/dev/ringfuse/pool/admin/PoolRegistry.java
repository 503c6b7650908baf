package dev.ringfuse.pool.admin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The list of imported pools and their devices (as zpool.cache): one line per pool, the name then the
 * device paths, tab-separated. It lives at {@code $RINGFUSE_POOLS} if set, else
 * {@code $XDG_CONFIG_HOME/ringfuse/pools} (default {@code ~/.config/ringfuse/pools}). Rewritten atomically.
 */
public final class PoolRegistry {
    private final Path file;

    public PoolRegistry(Path file) {
        this.file = file;
    }

    public static PoolRegistry fromEnvironment() {
        String env = System.getenv("RINGFUSE_POOLS");
        if (env != null && !env.isBlank()) return new PoolRegistry(Path.of(env));
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return new PoolRegistry(base.resolve("ringfuse").resolve("pools"));
    }

    public Path file() { return file; }

    public Map<String, List<Path>> load() throws IOException {
        Map<String, List<Path>> out = new LinkedHashMap<>();
        if (!Files.exists(file)) return out;
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.split("\t");
            List<Path> devs = new ArrayList<>();
            for (int i = 1; i < f.length; i++) devs.add(Path.of(f[i]));
            out.put(f[0], devs);
        }
        return out;
    }

    public List<Path> devices(String pool) throws IOException {
        List<Path> d = load().get(pool);
        if (d == null) throw new IOException("no pool named '" + pool + "' (known pools are listed in " + file + ")");
        return d;
    }

    public void put(String pool, List<Path> devices) throws IOException {
        Map<String, List<Path>> all = load();
        all.put(pool, devices);
        save(all);
    }

    public void remove(String pool) throws IOException {
        Map<String, List<Path>> all = load();
        all.remove(pool);
        save(all);
    }

    private void save(Map<String, List<Path>> all) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        StringBuilder s = new StringBuilder("# ringfuse pools: name<TAB>device...\n");
        for (var e : all.entrySet()) {
            s.append(e.getKey());
            for (Path p : e.getValue()) s.append('\t').append(p.toAbsolutePath());
            s.append('\n');
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, s);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
