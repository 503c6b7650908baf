package dev.ringfuse.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.*;

@Timeout(60)
class FileApiTest {
    @TempDir
    Path dir;

    @Test
    void asyncFileWritesReadsAndSyncs() throws Exception {
        Path p = dir.resolve("async");
        byte[] data = FileOperationsTest.pattern(64 * 1024, 11);
        try (UringLoop loop = UringLoop.start(32); Arena arena = Arena.ofShared()) {
            AsyncFile f = loop.open(p, OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0600);
            MemorySegment src = arena.allocate(data.length);
            MemorySegment.copy(data, 0, src, JAVA_BYTE, 0, data.length);
            List<CompletableFuture<Integer>> writes = new ArrayList<>();
            for (int i = 0; i < 16; i++) writes.add(f.write(src.asSlice(i * 4096L, 4096), i * 4096L));
            for (CompletableFuture<Integer> w : writes) assertEquals(4096, w.join());
            f.fsync(true).join();
            f.fsync(false).join();
            MemorySegment dst = arena.allocate(data.length);
            assertEquals(data.length, f.read(dst, 0).join());
            assertArrayEquals(data, dst.toArray(JAVA_BYTE));
            f.close();
            assertArrayEquals(data, Files.readAllBytes(p));
        }
    }

    @Test
    void registeredBuffersCarryFixedReadsAndWrites() throws Exception {
        Path p = dir.resolve("fixed");
        byte[] data = FileOperationsTest.pattern(64 * 1024, 12);
        // the arena first, so it closes last: registered memory must outlive the ring that pins it
        try (Arena arena = Arena.ofShared(); UringLoop loop = UringLoop.start(32)) {
            MemorySegment a = arena.allocate(data.length, 4096), b = arena.allocate(data.length, 4096);
            assertEquals(2, loop.registerBuffers(a, b));
            AsyncFile f = loop.open(p, OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0600);
            MemorySegment.copy(data, 0, a, JAVA_BYTE, 0, data.length);
            assertEquals(data.length / 2, f.writeFixed(a.asSlice(0, data.length / 2), 0, 0).join());
            assertEquals(data.length / 2, f.writeFixed(a.asSlice(data.length / 2), data.length / 2, 0).join());
            f.fsync(true).join();
            assertEquals(data.length, f.readFixed(b, 0, 1).join());
            assertArrayEquals(data, b.toArray(JAVA_BYTE));
            // a buffer outside the registered one is refused by the kernel (EFAULT), not read into
            MemorySegment stray = arena.allocate(4096, 4096);
            assertThrows(java.util.concurrent.CompletionException.class, () -> f.readFixed(stray, 0, 1).join());
            f.close();
            assertArrayEquals(data, Files.readAllBytes(p));
        }
    }

    @Test
    void manyConcurrentSubmittersOnOneLoop() throws Exception {
        try (UringLoop loop = UringLoop.start(16); ExecutorService pool = Executors.newFixedThreadPool(4)) {
            AtomicInteger ok = new AtomicInteger();
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                fs.add(pool.submit(() -> {
                    List<CompletableFuture<Integer>> batch = new ArrayList<>();
                    for (int i = 0; i < 5000; i++) batch.add(loop.nop());   // far more than the 32 slots
                    for (CompletableFuture<Integer> f : batch) if (f.join() == 0) ok.incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
            assertEquals(20000, ok.get());
        }
    }

    @Test
    void thousandVirtualThreadsReadVerifiedContent() throws Exception {
        Path p = dir.resolve("shared");
        int blocks = 256, bs = 4096;
        byte[] data = FileOperationsTest.pattern(blocks * bs, 42);
        Files.write(p, data);
        try (UringFiles files = UringFiles.create(2, 64);
             BlockingFile f = files.open(p, OpenFlags.O_RDONLY, 0);
             ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            AtomicInteger verified = new AtomicInteger();
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 1000; t++) {
                int seed = t;
                fs.add(vts.submit(() -> {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment buf = arena.allocate(bs);
                        for (int i = 0; i < 8; i++) {
                            int block = (seed * 31 + i * 17) % blocks;
                            assertEquals(bs, f.read(buf, (long) block * bs));
                            for (int j = 0; j < bs; j += 511)
                                assertEquals(data[block * bs + j], buf.get(JAVA_BYTE, j));
                            assertEquals(-1, MemorySegment.mismatch(buf, 0, bs,
                                    MemorySegment.ofArray(data), (long) block * bs, (long) block * bs + bs));
                            verified.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> fut : fs) fut.get();
            assertEquals(8000, verified.get());
        }
    }

    @Test
    void blockingWritesFromVirtualThreadsLandAtTheirOffsets() throws Exception {
        Path p = dir.resolve("vwrite");
        int n = 500, bs = 512;
        try (UringFiles files = UringFiles.create(2, 32)) {
            try (BlockingFile f = files.open(p, OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0600);
                 ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int t = 0; t < n; t++) {
                    int id = t;
                    vts.submit(() -> {
                        try (Arena arena = Arena.ofConfined()) {
                            MemorySegment buf = arena.allocate(bs);
                            buf.fill((byte) id);
                            assertEquals(bs, f.write(buf, (long) id * bs));
                        }
                        return null;
                    });
                }
                vts.close();
                f.fsync(false);
            }
        }
        byte[] disk = Files.readAllBytes(p);
        assertEquals(n * bs, disk.length);
        for (int i = 0; i < disk.length; i++) assertEquals((byte) (i / bs), disk[i], "offset " + i);
    }

    @Test
    void closingUringFilesReleasesParkedVirtualThreads() throws Exception {
        UringFiles files = UringFiles.create(1, 8);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment fds = arena.allocate(8, 4);
            assertEquals(0, dev.ringfuse.uring.internal.Syscalls.pipe2(
                    dev.ringfuse.uring.internal.Syscalls.newErrnoState(arena), fds, 02000000));
            BlockingFile readEnd = new BlockingFile(files, fds.get(java.lang.foreign.ValueLayout.JAVA_INT, 0), null);
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread vt = Thread.ofVirtual().start(() -> {
                try {
                    readEnd.read(arena.allocate(16), -1);
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            });
            Thread.sleep(50);
            files.close();
            vt.join();
            assertInstanceOf(RingClosedException.class, outcome.join());
        }
    }
}
