package dev.ringfuse.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A memory cgroup for a test, below the test's own: cgroup v2 (memory.max) where the memory controller is
 * on the unified hierarchy, else v1 (memory.limit_in_bytes), which hybrid machines still use. Closing moves
 * its processes back to the parent and removes it.
 */
final class MemoryCgroup implements AutoCloseable {
    final Path dir;
    final boolean v2;

    private MemoryCgroup(Path dir, boolean v2) {
        this.dir = dir;
        this.v2 = v2;
    }

    /** A new cgroup limited to {@code bytes}, or null if this machine has no writable memory controller. */
    static MemoryCgroup create(String name, long bytes) throws IOException {
        Path root;
        boolean v2;
        Path unified = Path.of("/sys/fs/cgroup/cgroup.controllers");
        if (Files.exists(unified) && Files.readString(unified).contains("memory")) {
            v2 = true;
            root = Path.of("/sys/fs/cgroup");
        } else if (Files.isDirectory(Path.of("/sys/fs/cgroup/memory"))) {
            v2 = false;
            root = Path.of("/sys/fs/cgroup/memory");
        } else {
            return null;
        }
        String own = "";
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            String[] f = line.split(":", 3);
            if (v2 ? f[0].equals("0") : List.of(f[1].split(",")).contains("memory")) own = f[2];
        }
        Path dir = root.resolve(own.replaceFirst("^/", "")).resolve(name);
        Files.createDirectories(dir);
        MemoryCgroup cg = new MemoryCgroup(dir, v2);
        Files.writeString(dir.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"), Long.toString(bytes));
        if (v2) Files.writeString(dir.resolve("memory.swap.max"), "0");
        return cg;
    }

    /** The shell words that move the shell into this cgroup before it execs the command after them. */
    List<String> enter() {
        return List.of("sh", "-c", "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "sh");
    }

    /** The largest memory use so far (v1 max_usage_in_bytes, v2 memory.peak). */
    long peak() throws IOException {
        Path p = dir.resolve(v2 ? "memory.peak" : "memory.max_usage_in_bytes");
        return Files.exists(p) ? Long.parseLong(Files.readString(p).trim()) : -1;
    }

    /** How many processes the OOM killer killed in this cgroup. */
    long oomKills() throws IOException {
        Path p = dir.resolve(v2 ? "memory.events" : "memory.oom_control");
        for (String line : Files.readAllLines(p)) {
            if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring(9).trim());
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        Path parent = dir.getParent().resolve("cgroup.procs");
        for (int round = 0; round < 50; round++) {
            for (String pid : Files.readAllLines(dir.resolve("cgroup.procs"))) {
                try {
                    Files.writeString(parent, pid);
                } catch (IOException gone) {
                    // the process ended meanwhile
                }
            }
            try {
                Files.delete(dir);
                return;
            } catch (IOException busy) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
