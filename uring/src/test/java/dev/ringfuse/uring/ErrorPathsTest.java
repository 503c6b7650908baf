package dev.ringfuse.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class ErrorPathsTest {
    @TempDir
    Path dir;

    @Test
    void badFdCompletesWithEbadf() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).build()); Arena arena = Arena.ofConfined()) {
            ring.nextSqe().prepRead(12345, arena.allocate(8), 0).userData(1);
            Completion c = Rings.one(ring);
            assertTrue(c.failed());
            assertEquals(9, c.errno());
            UringException e = UringException.fromResult("READ", c.res());
            assertEquals("EBADF", e.errnoName());
            assertEquals("READ", e.operation());
            assertEquals("READ: EBADF", e.getMessage());
        }
    }

    @Test
    void missingFileIsEnoentFromEveryApi() throws Exception {
        Path missing = dir.resolve("nope/missing");
        try (IoUring ring = IoUring.open(RingConfig.builder(4).build()); Arena arena = Arena.ofConfined()) {
            UringException e = assertThrows(UringException.class,
                    () -> Rings.open(ring, arena, missing, Rings.O_RDONLY, 0));
            assertEquals(2, e.errno());
        }
        try (UringLoop loop = UringLoop.start(8)) {
            UringException e = assertThrows(UringException.class, () -> loop.open(missing, OpenFlags.O_RDONLY, 0));
            assertEquals(2, e.errno());
            assertEquals("OPENAT", e.operation());
        }
        try (UringFiles files = UringFiles.create(1, 8)) {
            UringException e = assertThrows(UringException.class, () -> files.open(missing, OpenFlags.O_RDONLY, 0));
            assertEquals("ENOENT", e.errnoName());
        }
    }

    @Test
    void impossibleSetupIsReportedAsUringException() {
        // DEFER_TASKRUN without SINGLE_ISSUER is refused before reaching the kernel ...
        assertThrows(IllegalArgumentException.class,
                () -> new RingConfig(8, 0, 1 << 13, 0));
        // ... and a CQ smaller than the SQ by the kernel
        UringException e = assertThrows(UringException.class,
                () -> IoUring.open(RingConfig.builder(64).cqEntries(8).build()));
        assertEquals(22, e.errno());
        assertEquals("io_uring_setup", e.operation());
    }

    @Test
    void closedRingRefusesWorkAndClosesOnce() throws Exception {
        IoUring ring = IoUring.open(RingConfig.builder(4).build());
        ring.nextSqe().prepNop().userData(1);
        ring.close();
        ring.close();
        assertTrue(ring.isClosed());
        assertThrows(RingClosedException.class, ring::submit);
        assertThrows(RingClosedException.class, () -> ring.submitAndWait(1));
        // the mapped SQE memory is scoped to the ring: stale access throws instead of crashing the JVM
        assertThrows(IllegalStateException.class, () -> {
            for (int i = 0; i < 8; i++) ring.nextSqe().prepNop();
        });
    }

    @Test
    void closingALoopFailsPendingFutures() throws Exception {
        UringLoop loop = UringLoop.start(8);
        try (Arena arena = Arena.ofShared()) {
            // a read of an empty pipe never completes by itself
            MemorySegment fds = arena.allocate(8, 4);
            assertEquals(0, dev.ringfuse.uring.internal.Syscalls.pipe2(
                    dev.ringfuse.uring.internal.Syscalls.newErrnoState(arena), fds, 02000000));
            AsyncFile readEnd = loop.wrap(fds.get(java.lang.foreign.ValueLayout.JAVA_INT, 0));
            MemorySegment buf = arena.allocate(64);
            CompletableFuture<Integer> stuck = readEnd.read(buf, -1);
            Thread.sleep(50);
            assertFalse(stuck.isDone());
            loop.close();
            CompletionException ce = assertThrows(CompletionException.class, stuck::join);
            RingClosedException rce = assertInstanceOf(RingClosedException.class, ce.getCause());
            assertEquals("READ", rce.operation());
            assertEquals(125, rce.errno());
            // after close, new work fails at once
            CompletionException late = assertThrows(CompletionException.class, () -> loop.nop().join());
            assertInstanceOf(RingClosedException.class, late.getCause());
            loop.close();   // idempotent
        }
    }

    @Test
    void singleIssuerRingRefusesAnotherSubmitter() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).singleIssuer().build())) {
            ring.nextSqe().prepNop().userData(1);
            assertEquals(0, Rings.one(ring).res());            // the creating thread may submit
            ring.nextSqe().prepNop().userData(2);
            CompletableFuture<Throwable> other = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    ring.submit();
                    other.complete(null);
                } catch (Throwable t) {
                    other.complete(t);
                }
            }).join();
            UringException e = assertInstanceOf(UringException.class, other.join());
            assertEquals("EEXIST", e.errnoName());
            assertEquals("io_uring_enter", e.operation());
        }
    }

    @Test
    void heapSegmentsAreRejected() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).build())) {
            MemorySegment heap = MemorySegment.ofArray(new byte[16]);
            assertThrows(IllegalArgumentException.class, () -> ring.nextSqe().prepRead(0, heap, 0));
        }
    }

    @Test
    void closedAsyncFileFailsWithEbadf() throws Exception {
        try (UringLoop loop = UringLoop.start(8); Arena arena = Arena.ofShared()) {
            AsyncFile f = loop.open(dir.resolve("x"), OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0600);
            f.close();
            CompletionException ce = assertThrows(CompletionException.class, () -> f.read(arena.allocate(8), 0).join());
            UringException ue = assertInstanceOf(UringException.class, ce.getCause());
            assertEquals(9, ue.errno());
        }
    }
}
