package dev.ringfuse.testkit;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * O_DIRECT reads and writes through the passthrough filesystem with kernel passthrough off, over tmpfs: the
 * server serves them with pread/pwrite, not through its threads' rings, where tmpfs's direct I/O cannot be
 * tried without blocking and io_uring handed every request to an io-wq worker ({@code iou-wrk-*} threads of
 * this process) and its completion back: 20 µs of server CPU per 4 KiB read instead of 7.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PassthroughDirectIoWorkersTest {
    private static Path source;

    @BeforeAll
    static void tmpfsSource() throws IOException {
        Path shm = Path.of("/dev/shm");
        source = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of("/tmp"), "ringfuse-dio-workers");
    }

    @AfterAll
    static void removeSource() throws IOException {
        if (source != null) PassthroughScenarios.deleteTree(source);
    }

    @RegisterExtension
    final FuseMount dev = FuseMount.of(() -> new PassthroughFs(PassthroughFs.Options.of(source).withKernel(KernelMode.OFF)))
            .timeout(Duration.ofSeconds(90))
            .options(MountOptions.defaults().withTransport(TransportKind.DEV).withInitTimeout(Duration.ofSeconds(90)));

    /** io-wq workers of this process now: the server runs in it. */
    private static long ioWorkers() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.filter(t -> {
                try {
                    return Files.readString(t.resolve("comm")).startsWith("iou-wrk");
                } catch (IOException e) {
                    return false; // the thread ended meanwhile
                }
            }).count();
        }
    }

    @Test
    void directReadsAndWritesNeedNoIoWorker() throws Exception {
        Path file = dev.testDir().resolve("direct");
        int size = 4096, blocks = 256;
        ByteBuffer b = ByteBuffer.allocateDirect(2 * size).alignedSlice(size).limit(size).slice();
        long before = ioWorkers();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            for (int i = 0; i < blocks; i++) {
                b.clear();
                while (b.hasRemaining()) b.put((byte) i);
                b.flip();
                assertEquals(size, ch.write(b, (long) i * size));
            }
            for (int round = 0; round < 8; round++) {
                for (int i = 0; i < blocks; i++) {
                    int k = (i * 97 + round) % blocks; // not sequential: every read reaches the source
                    b.clear();
                    assertEquals(size, ch.read(b, (long) k * size));
                    assertEquals((byte) k, b.get(0), "block " + k);
                    assertEquals((byte) k, b.get(size - 1), "block " + k);
                }
            }
        }
        long after = ioWorkers();
        assertTrue(after <= before, "io-wq workers before " + before + ", after " + after
                + ": O_DIRECT requests were handed to io_uring's workers");
        assertEquals(size * blocks, Files.size(source.resolve(dev.testDir().getFileName()).resolve("direct")));
    }
}
