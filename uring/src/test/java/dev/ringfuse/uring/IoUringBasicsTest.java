package dev.ringfuse.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class IoUringBasicsTest {
    @TempDir
    Path dir;

    @Test
    void nopCompletesWithItsUserData() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(8).build())) {
            ring.nextSqe().prepNop().userData(0xDEADBEEFCAFEL);
            Completion c = Rings.one(ring);
            assertEquals(0xDEADBEEFCAFEL, c.userData());
            assertEquals(0, c.res());
        }
    }

    @Test
    void probeReportsCommonOpcodes() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(4).build())) {
            Features f = ring.features();
            assertTrue(f.supports(Opcode.NOP));
            assertTrue(f.supports(Opcode.READ));
            assertTrue(f.supports(Opcode.URING_CMD));
            assertTrue(f.lastOp() >= Opcode.URING_CMD.code());
            assertFalse(f.supports(255));
            assertTrue(f.noDrop());
        }
    }

    @Test
    void allDocumentedSetupFlagsAreAccepted() throws Exception {
        RingConfig cfg = RingConfig.builder(16).cqEntries(64).sqe128().cqe32().singleIssuer().deferTaskrun()
                .coopTaskrun().submitAll().build();
        try (IoUring ring = IoUring.open(cfg)) {
            assertEquals(16, ring.sqEntries());
            assertEquals(64, ring.cqEntries());
            for (int i = 0; i < 40; i++) ring.nextSqe().prepNop().userData(i);
            assertEquals(40, Rings.await(ring, 40).size());
        }
    }

    @Test
    void sqPollRingSubmitsWithoutEnter() throws Exception {
        try (IoUring ring = IoUring.open(RingConfig.builder(8).sqPoll(50).build())) {
            for (int round = 0; round < 20; round++) {
                ring.nextSqe().prepNop().userData(round);
                assertEquals(round, Rings.one(ring).userData());
            }
        }
    }

    @Test
    void writeThenReadBackExactBytes() throws Exception {
        Path file = dir.resolve("data");
        try (IoUring ring = IoUring.open(RingConfig.builder(8).build()); Arena arena = Arena.ofConfined()) {
            int fd = Rings.open(ring, arena, file, Rings.O_RDWR | Rings.O_CREAT, 0644);
            MemorySegment src = arena.allocate(8192, 4096);
            for (int i = 0; i < 8192; i++) src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            ring.nextSqe().prepWrite(fd, src, 0).userData(1);
            assertEquals(8192, Rings.one(ring).res());
            MemorySegment dst = arena.allocate(4096, 4096);
            ring.nextSqe().prepRead(fd, dst, 4096).userData(2);
            assertEquals(4096, Rings.one(ring).res());
            assertEquals(-1, dst.mismatch(src.asSlice(4096)));
            Rings.close(ring, fd);
            assertArrayEquals(src.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), Files.readAllBytes(file));
        }
    }
}
