package dev.ringfuse.cli;

import dev.ringfuse.sys.IoFlusher;
import dev.ringfuse.sys.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Makes every thread of the server an I/O flusher, including the JVM's own (GC, JIT, the VM thread), which
 * exist before main runs and so cannot inherit a mark set later: one of them stuck in reclaim would stall
 * the marked serving threads at the next safepoint. The mark survives execve, so main marks itself and
 * executes the same command again: the new JVM's threads are all created by a marked thread. Done once
 * (an environment variable says it was), only as root, only when the kernel grants the mark.
 */
final class WholeProcessFlusher {
    static final String DONE = "RINGFUSE_IO_FLUSHER_EXEC";
    /** For tests: execute again even if the kernel refused the mark (checks the mechanics everywhere). */
    static final String FORCE = "RINGFUSE_IO_FLUSHER_EXEC_FORCE";

    private WholeProcessFlusher() {}

    /** Whether these arguments serve a filesystem that carries a block device: a volume, or -o io_flusher. */
    static boolean wanted(String[] args) {
        if (args.length < 2 || !args[0].equals("mount")) return false;
        if (args[1].equals("volume")) return true;
        for (int i = 2; i < args.length - 1; i++) {
            if (args[i].equals("-o") && List.of(args[i + 1].split(",")).contains("io_flusher")) return true;
        }
        return false;
    }

    /** Re-executes this JVM marked, if wanted and possible; returns only if it did not. */
    static void reexecIfWanted(String[] args) {
        if (!wanted(args) || System.getenv(DONE) != null || Libc.geteuid() != 0) return;
        boolean marked = IoFlusher.markThisThread() == null;
        if (!marked && System.getenv(FORCE) == null) return;
        List<String> argv = new ArrayList<>(MountHelperCommand.javaPrefix());
        argv.addAll(List.of(args));
        List<String> env = new ArrayList<>();
        for (Map.Entry<String, String> e : System.getenv().entrySet()) env.add(e.getKey() + "=" + e.getValue());
        env.add(DONE + "=1");
        Linker linker = Linker.nativeLinker();
        MethodHandle execve = linker.downcallHandle(linker.defaultLookup().find("execve").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        System.out.flush();
        System.err.flush();
        try (Arena a = Arena.ofConfined()) {
            int r = (int) execve.invokeExact(a.allocateFrom(argv.getFirst()), strings(a, argv), strings(a, env));
            System.err.println("ringfuse: could not re-execute as an I/O flusher (execve returned " + r
                    + "); serving with the serving threads marked only");
        } catch (Throwable t) {
            System.err.println("ringfuse: could not re-execute as an I/O flusher: " + t);
        }
    }

    private static MemorySegment strings(Arena a, List<String> l) {
        MemorySegment array = a.allocate(ADDRESS, l.size() + 1);
        for (int i = 0; i < l.size(); i++) array.setAtIndex(ADDRESS, i, a.allocateFrom(l.get(i)));
        array.setAtIndex(ADDRESS, l.size(), MemorySegment.NULL);
        return array;
    }
}
