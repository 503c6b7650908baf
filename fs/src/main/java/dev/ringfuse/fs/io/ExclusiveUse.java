package dev.ringfuse.fs.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A server's claim on what it serves (a volume image, a passthrough source directory, a pool device): an
 * flock(2) held on its own open file description for the server's life. Exclusive for a read-write server,
 * shared for a read-only one, so several read-only servers may serve one image but never next to a writer.
 * flock rather than fcntl record locks: a record lock belongs to the process and goes away when the
 * process closes <em>any</em> descriptor of the file (the filesystem opens and closes the image for its
 * own reasons); an flock belongs to the open file description and lives until this object is closed or the
 * process ends (also when it is killed). /proc/locks names the pid that took an flock, so a refusal can
 * name the holder.
 */
public final class ExclusiveUse implements AutoCloseable {
    private static final int LOCK_SH = 1, LOCK_EX = 2, LOCK_NB = 4, LOCK_UN = 8;
    private static final int O_RDONLY = 0, O_CLOEXEC = 0x80000, EWOULDBLOCK = 11, EINTR = 4;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = call("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle FLOCK = call("flock", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), -1);
    private static final MethodHandle CLOSE = call("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), -1);

    private final Path path;
    private final boolean shared;
    private int fd;

    private ExclusiveUse(Path path, boolean shared, int fd) {
        this.path = path;
        this.shared = shared;
        this.fd = fd;
    }

    /** Refused: someone else holds a conflicting claim. The message names the file and, where known, the holder. */
    public static final class InUseException extends IOException {
        private final long holder;

        InUseException(String message, long holder) {
            super(message);
            this.holder = holder;
        }

        /** The pid of a process holding the conflicting lock, or -1 if unknown. */
        public long holder() { return holder; }
    }

    /**
     * Claims {@code file} (a file or a directory), without waiting.
     *
     * @param what   what the file is to the server, for the message ("volume image", "passthrough source")
     * @param shared a read-only server's claim: shared with other read-only ones
     * @throws InUseException one line: the file, that it is in use, by whom, and what to do
     */
    public static ExclusiveUse claim(Path file, boolean shared, String what) throws IOException {
        Path abs = file.toAbsolutePath().normalize();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CAPTURE);
            int fd = (int) OPEN.invokeExact(st, a.allocateFrom(abs.toString()), O_RDONLY | O_CLOEXEC, 0);
            if (fd < 0) throw new IOException("cannot open " + what + " " + abs + " to lock it: errno " + (int) ERRNO.get(st, 0L));
            int r, errno;
            do {
                r = (int) FLOCK.invokeExact(st, fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB);
                errno = r < 0 ? (int) ERRNO.get(st, 0L) : 0;
            } while (r < 0 && errno == EINTR);
            if (r == 0) return new ExclusiveUse(abs, shared, fd);
            int ignored = (int) CLOSE.invokeExact(st, fd);
            if (errno != EWOULDBLOCK) throw new IOException("cannot lock " + what + " " + abs + ": errno " + errno);
            Optional<Long> pid = holder(abs);
            String by = pid.map(p -> " by pid " + p + commandLine(p).map(c -> " (" + c + ")").orElse("")).orElse("");
            throw new InUseException(what + " " + abs + " is already in use" + by + ": "
                    + (shared ? "a read-write server holds it; stop it first"
                              : "one read-write server at a time (read-only servers, -o ro, may share it); stop the other first"),
                    pid.orElse(-1L));
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The claimed file. */
    public Path path() { return path; }

    /** Whether this is a read-only (shared) claim. */
    public boolean shared() { return shared; }

    /** Gives the claim up. Idempotent. */
    @Override
    public synchronized void close() {
        if (fd < 0) return;
        try (Arena a = Arena.ofConfined()) {
            int ignored = (int) CLOSE.invokeExact(a.allocate(CAPTURE), fd);
        } catch (Throwable t) {
            // close never fails in a way that keeps the lock: the descriptor is gone either way
        }
        fd = -1;
    }

    /**
     * A process holding an flock on {@code file}: /proc/locks lines are "N: FLOCK ADVISORY WRITE pid
     * MAJ:MIN:INODE 0 EOF" with the device in hex.
     */
    static Optional<Long> holder(Path file) {
        try {
            long dev = (Long) Files.getAttribute(file, "unix:dev");
            long ino = (Long) Files.getAttribute(file, "unix:ino");
            long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
            long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
            String id = String.format("%02x:%02x:%d", major, minor, ino);
            for (String line : Files.readAllLines(Path.of("/proc/locks"))) {
                String[] f = line.trim().split("\\s+");
                // "1:" "FLOCK" "ADVISORY" "WRITE" "pid" "dev:ino" ...; blocked waiters have "->" after the number
                if (f.length >= 6 && f[1].equals("FLOCK") && f[5].equals(id)) {
                    long pid = Long.parseLong(f[4]);
                    if (pid > 0) return Optional.of(pid);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc: the refusal just names no holder
        }
        return Optional.empty();
    }

    private static Optional<String> commandLine(long pid) {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            // without the class path, which would fill the line
            String[] args = new String(b, StandardCharsets.UTF_8).split("\0");
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < args.length; i++) {
                if ((args[i].equals("-cp") || args[i].equals("-classpath")) && i + 1 < args.length) {
                    i++;
                    continue;
                }
                if (!sb.isEmpty()) sb.append(' ');
                sb.append(args[i]);
            }
            String s = sb.toString().trim();
            if (s.isEmpty()) return Optional.empty();
            return Optional.of(s.length() > 400 ? s.substring(0, 400) + "..." : s);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static MethodHandle call(String name, FunctionDescriptor fd, int firstVariadic) {
        MemorySegment sym = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError(name));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        return firstVariadic < 0 ? LINKER.downcallHandle(sym, fd, capture)
                : LINKER.downcallHandle(sym, fd, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }
}
