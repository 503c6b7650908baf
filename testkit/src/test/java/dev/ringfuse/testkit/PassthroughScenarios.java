package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The suite on the passthrough filesystem over a fresh source directory on tmpfs (/dev/shm), with kernel
 * passthrough on or off; one subclass per transport and mode. Every feature is claimed: the source is
 * tmpfs, which has them all.
 */
abstract class PassthroughScenarios extends PosixScenarios {
    /** The source directory behind each mount. */
    static final Map<FuseMount, Path> SOURCES = new ConcurrentHashMap<>();

    /** A fresh source directory, removed when the JVM exits. */
    static Path newSource() {
        try {
            Path shm = Path.of("/dev/shm");
            Path src = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of("/tmp"), "ringfuse-pt-src");
            // createTempDirectory makes it 0700: other users (the MULTI_USER scenarios) must get in
            Files.setPosixFilePermissions(src, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(src)));
            return src;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** rm -rf: java.nio cannot name the non-UTF-8 files the suite leaves behind. */
    static void deleteTree(Path dir) {
        try {
            new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
        } catch (IOException | InterruptedException ignored) {
            // best effort at exit
        }
    }

    static FuseMount passthrough(TransportKind transport, PassthroughFs.KernelMode kernel) {
        return passthrough(transport, kernel, true);
    }

    /** Without default_permissions passthrough runs every call as its caller, and the source checks it. */
    static FuseMount passthrough(TransportKind transport, PassthroughFs.KernelMode kernel, boolean defaultPermissions) {
        Path source = newSource();
        FuseMount m = PathMemFsScenarios.suiteMount(() -> new PassthroughFs(PassthroughFs.Options.of(source).withKernel(kernel)),
                transport, defaultPermissions);
        SOURCES.put(m, source);
        return m;
    }

    abstract FuseMount fuseMount();

    /** Whether this class asked for kernel passthrough. */
    abstract boolean kernelWanted();

    @Override
    protected Path root() {
        return fuseMount().root();
    }

    /**
     * Issue 18.1: a set-user-ID file made so in the source behind the mount's back (the kernel still caches
     * 0777, so it sends no privilege kill): another user's truncate, fallocate and copy_file_range through
     * the mount still clear the bits in the source, because they run with that user's credentials.
     */
    @Test
    void othersChangesClearSetIdBitsInTheSource() throws Exception {
        requiresRoot();
        Path source = SOURCES.get(fuseMount()).resolve(dir().getFileName());
        dev.ringfuse.testkit.internal.Check.file(dir().resolve("from"), "copied");
        String[] ops = {"truncate", "ftruncate", "fallocate", "copy"};
        for (String op : ops) {
            Path f = dev.ringfuse.testkit.internal.Check.file(dir().resolve(op), "#!/bin/sh\n");
            Libc.chmod(f.toString(), 0777);
            Libc.stat(f.toString()); // cached as 0777
            Libc.chmod(source.resolve(op).toString(), 04777);
        }
        Procs.Result r = Procs.pythonAs(1000, 1000, """
                d = sys.argv[1]
                t("truncate", lambda: os.truncate(d + "/truncate", 100))
                def ftr():
                    fd = os.open(d + "/ftruncate", os.O_WRONLY); os.ftruncate(fd, 3); os.close(fd)
                t("ftruncate", ftr)
                def fal():
                    fd = os.open(d + "/fallocate", os.O_WRONLY); os.posix_fallocate(fd, 0, 65536); os.close(fd)
                t("fallocate", fal)
                def cp():
                    s = os.open(d + "/from", os.O_RDONLY); fd = os.open(d + "/copy", os.O_WRONLY)
                    os.copy_file_range(s, fd, 6, 0, 0); os.close(fd); os.close(s)
                t("copy", cp)
                """, dir().toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(Map.of("truncate", "OK", "ftruncate", "OK", "fallocate", "OK", "copy", "OK"), r.outcomes());
        for (String op : ops) {
            assertEquals(0100777, Libc.stat(source.resolve(op).toString()).mode(), op + " in the source");
            assertEquals(0100777, Libc.stat(dir().resolve(op).toString()).mode(), op + " through the mount");
        }
    }

    /** Root on Linux 6.9+ (this machine runs 6.18 as root): asking for kernel passthrough must get it. */
    @Test
    void kernelPassthroughIsOnExactlyWhenAskedFor() {
        assertEquals(kernelWanted(), ((PassthroughFs) fuseMount().fileSystem()).kernelPassthrough());
    }
}
