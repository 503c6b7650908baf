package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A passthrough mount serving its own reads and writes (kernel passthrough off, through the threads' io_uring
 * rings) while JFR profiles the server: every O_DIRECT read and write succeeds with the right bytes. JFR's
 * sampler signals the serving threads; a signal that ended a ring's wait after its submit was taken for a
 * lost completion and answered EIO (found by profiling the benchmark: several EIO in 10 s of fio).
 */
@Timeout(120)
class ProfiledMountTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void directIoUnderTheProfilerNeverFails(TransportKind transport) throws Exception {
        Path source = Files.createDirectory(dir.resolve("source"));
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        PassthroughFs fs = new PassthroughFs(PassthroughFs.Options.of(source).withKernel(PassthroughFs.KernelMode.OFF));
        int blocks = 1024;
        byte[] expected = new byte[blocks * 4096];
        new Random(7).nextBytes(expected);
        try (Recording rec = new Recording(Configuration.getConfiguration("profile"));
             Mount m = Fuse.mount(mnt, fs, MountOptions.defaults().withTransport(transport))) {
            rec.start();
            int fd;
            try (Arena a = Arena.ofConfined()) {
                fd = PosixCalls.openat(PosixCalls.AT_FDCWD, a.allocateFrom(mnt.resolve("data").toString()),
                        PosixCalls.O_RDWR | PosixCalls.O_CREAT | PosixCalls.O_DIRECT | PosixCalls.O_CLOEXEC, 0644);
            }
            assertTrue(fd >= 0, "open: " + fd);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(4096, 4096);
                for (int b = 0; b < blocks; b++) {
                    MemorySegment.copy(expected, b * 4096, buf, JAVA_BYTE, 0, 4096);
                    assertEquals(4096, PosixCalls.pwrite(fd, buf, b * 4096L), "write of block " + b);
                }
                Random r = new Random(11);
                long end = System.nanoTime() + 3_000_000_000L;
                int reads = 0;
                while (System.nanoTime() < end) {
                    int b = r.nextInt(blocks);
                    assertEquals(4096, PosixCalls.pread(fd, buf, b * 4096L), "read of block " + b + " after " + reads + " reads");
                    for (int i = 0; i < 4096; i += 512) {
                        assertEquals(expected[b * 4096 + i], buf.get(JAVA_BYTE, i), "block " + b + " byte " + i);
                    }
                    reads++;
                }
                assertTrue(reads > 1_000, "reads: " + reads);
            } finally {
                PosixCalls.close(fd);
            }
        }
    }
}
