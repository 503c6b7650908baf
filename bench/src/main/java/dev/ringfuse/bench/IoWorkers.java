package dev.ringfuse.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The io-wq worker threads the kernel created for the calling thread's rings: threads of this process named
 * {@code iou-wrk-<tid>}. A request that cannot complete without blocking (a buffered write on ext4, an O_DIRECT
 * request the device queue refused) is punted to one of them.
 */
final class IoWorkers {
    private IoWorkers() {}

    /** The calling thread's kernel thread id. */
    static long tid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** io-wq workers of the calling thread alive now. */
    static long count() {
        String name = "iou-wrk-" + tid();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.filter(t -> {
                try {
                    return Files.readString(t.resolve("comm")).trim().equals(name);
                } catch (IOException e) {
                    return false;      // the thread ended meanwhile
                }
            }).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Voluntary + involuntary context switches of the calling thread so far. */
    static long contextSwitches() {
        try {
            long n = 0;
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
