package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The suite on the passthrough filesystem over a fresh source directory on tmpfs (/dev/shm), with kernel
 * passthrough on or off; one subclass per transport and mode. Every feature is claimed: the source is
 * tmpfs, which has them all.
 */
abstract class PassthroughScenarios extends PosixScenarios {
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
        Path source = newSource();
        return PathMemFsScenarios.suiteMount(() -> new PassthroughFs(PassthroughFs.Options.of(source).withKernel(kernel)), transport);
    }

    abstract FuseMount fuseMount();

    /** Whether this class asked for kernel passthrough. */
    abstract boolean kernelWanted();

    @Override
    protected Path root() {
        return fuseMount().root();
    }

    /** Root on Linux 6.9+ (this machine runs 6.18 as root): asking for kernel passthrough must get it. */
    @Test
    void kernelPassthroughIsOnExactlyWhenAskedFor() {
        assertEquals(kernelWanted(), ((PassthroughFs) fuseMount().fileSystem()).kernelPassthrough());
    }
}
