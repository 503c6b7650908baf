package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Syscalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.*;

/** Timers, cancellation, polling, links, splice and URING_CMD. */
@Timeout(30)
class ControlOperationsTest extends RingTest {
    static final int ETIME = 62, ECANCELED = 125, EBADF = 9, EOPNOTSUPP = 95, POLLIN = 1, POLLOUT = 4;
    int[] pipe;

    @Override
    RingConfig config() {
        return RingConfig.builder(16).sqe128().build();
    }

    @BeforeEach
    void openPipe() throws Exception {
        MemorySegment fds = arena.allocate(JAVA_INT, 2);
        assertEquals(0, Syscalls.pipe2(Syscalls.newErrnoState(arena), fds, 02000000));
        pipe = new int[]{fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
    }

    @AfterEach
    void closePipe() throws Exception {
        for (int fd : pipe) ring.nextSqe().prepClose(fd).userData(99);
        Rings.await(ring, 2);
    }

    MemorySegment timespec(long nanos) {
        MemorySegment ts = arena.allocate(16, 8);
        ts.set(JAVA_LONG, 0, nanos / 1_000_000_000L);
        ts.set(JAVA_LONG, 8, nanos % 1_000_000_000L);
        return ts;
    }

    static Map<Long, Integer> byUserData(List<Completion> cs) {
        return cs.stream().collect(Collectors.toMap(Completion::userData, Completion::res));
    }

    @Test
    void timeoutExpiresWithEtime() throws Exception {
        long t0 = System.nanoTime();
        ring.nextSqe().prepTimeout(timespec(20_000_000), 0, 0).userData(1);
        assertEquals(-ETIME, Rings.one(ring).res());
        assertTrue(System.nanoTime() - t0 >= 15_000_000);
    }

    @Test
    void linkTimeoutCancelsAStuckPoll() throws Exception {
        ring.nextSqe().prepPollAdd(pipe[0], POLLIN).link().userData(1);     // nothing will ever be written
        ring.nextSqe().prepLinkTimeout(timespec(10_000_000), 0).userData(2);
        Map<Long, Integer> r = byUserData(Rings.await(ring, 2));
        assertEquals(-ECANCELED, r.get(1L));
        assertEquals(-ETIME, r.get(2L));
    }

    @Test
    void asyncCancelByUserData() throws Exception {
        ring.nextSqe().prepPollAdd(pipe[0], POLLIN).userData(7);
        ring.submit();
        ring.nextSqe().prepCancel(7, 0).userData(8);
        Map<Long, Integer> r = byUserData(Rings.await(ring, 2));
        assertEquals(0, r.get(8L));
        assertEquals(-ECANCELED, r.get(7L));
    }

    @Test
    void pollAddReportsReadiness() throws Exception {
        ring.nextSqe().prepPollAdd(pipe[1], POLLOUT).userData(1);
        assertEquals(POLLOUT, Rings.one(ring).res() & POLLOUT);
    }

    @Test
    void linkedWriteThenReadRunInOrder() throws Exception {
        Path f = dir.resolve("linked");
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        MemorySegment src = arena.allocateFrom("linked data");
        MemorySegment dst = arena.allocate(src.byteSize());
        ring.nextSqe().prepWrite(fd, src, 0).link().userData(1);
        ring.nextSqe().prepFsync(fd, true).link().userData(2);
        ring.nextSqe().prepRead(fd, dst, 0).userData(3);
        Map<Long, Integer> r = byUserData(Rings.await(ring, 3));
        assertEquals((int) src.byteSize(), r.get(1L));
        assertEquals(0, r.get(2L));
        assertEquals((int) src.byteSize(), r.get(3L));
        assertEquals(-1, src.mismatch(dst));
        Rings.close(ring, fd);
    }

    @Test
    void failedLinkHeadCancelsTheChain() throws Exception {
        MemorySegment buf = arena.allocate(16);
        ring.nextSqe().prepRead(-1, buf, 0).link().userData(1);
        ring.nextSqe().prepNop().userData(2);
        Map<Long, Integer> r = byUserData(Rings.await(ring, 2));
        assertEquals(-EBADF, r.get(1L));
        assertEquals(-ECANCELED, r.get(2L));
    }

    @Test
    void spliceFileThroughPipeIntoFile() throws Exception {
        Path in = dir.resolve("in"), out = dir.resolve("out");
        byte[] data = FileOperationsTest.pattern(4096, 5);
        Files.write(in, data);
        int fin = Rings.open(ring, arena, in, Rings.O_RDONLY, 0);
        int fout = Rings.open(ring, arena, out, Rings.O_WRONLY | Rings.O_CREAT, 0600);
        ring.nextSqe().prepSplice(fin, 0, pipe[1], -1, 4096, 0).link().userData(1);
        ring.nextSqe().prepSplice(pipe[0], -1, fout, 0, 4096, 0).userData(2);
        Map<Long, Integer> r = byUserData(Rings.await(ring, 2));
        assertEquals(4096, r.get(1L));
        assertEquals(4096, r.get(2L));
        Rings.close(ring, fin);
        Rings.close(ring, fout);
        assertArrayEquals(data, Files.readAllBytes(out));
    }

    @Test
    void uringCmdReachesTheDriverWithCmdOpAndCommandArea() throws Exception {
        Features f = ring.features();
        Assumptions.assumeTrue(f.supports(Opcode.SOCKET) && f.supports(Opcode.URING_CMD));
        // IORING_OP_SOCKET: fd = domain, off = type, len = protocol (AF_INET, SOCK_DGRAM, 0)
        ring.nextSqe().prepRw(Opcode.SOCKET, 2, 0, 0, 2).userData(1);
        int sock = Rings.one(ring).res();
        Assumptions.assumeTrue(sock >= 0, "no socket: " + sock);
        // SOCKET_URING_OP_SIOCINQ (cmd_op 0): bytes queued for reading, 0 on a fresh socket
        ring.nextSqe().prepUringCmd(sock, 0).userData(2);
        assertEquals(0, Rings.one(ring).res());
        // an unknown cmd_op reaches the driver and is refused by it
        ring.nextSqe().prepUringCmd(sock, 0x7777).userData(3);
        assertEquals(-EOPNOTSUPP, Rings.one(ring).res());
        // SOCKET_URING_OP_GETSOCKOPT (2): level/optname in addr, optlen at +44, optval pointer in cmd[0..8)
        MemorySegment optval = arena.allocate(JAVA_INT);
        Sqe sqe = ring.nextSqe().prepUringCmd(sock, 2).addr((3L << 32) | 1).spliceFdIn(4).userData(4);
        sqe.cmd().set(JAVA_LONG, 0, optval.address());          // SOL_SOCKET=1, SO_TYPE=3
        assertEquals(80, sqe.cmd().byteSize());
        int res = Rings.one(ring).res();
        assertTrue(res >= 0, "getsockopt via URING_CMD: " + res);
        assertEquals(2, optval.get(JAVA_INT, 0), "SO_TYPE should be SOCK_DGRAM");
        Rings.close(ring, sock);
    }

    @Test
    void uringCmdOnAPlainFileIsRefused() throws Exception {
        Path f = dir.resolve("plain");
        int fd = Rings.open(ring, arena, f, Rings.O_RDWR | Rings.O_CREAT, 0600);
        Sqe sqe = ring.nextSqe().prepUringCmd(fd, 1).userData(5);
        sqe.cmd().fill((byte) 0x5a);
        assertEquals(-EOPNOTSUPP, Rings.one(ring).res());
        assertEquals((byte) 0x5a, sqe.cmd().get(JAVA_BYTE, 79), "cmd area spans to the end of the 128-byte SQE");
        Rings.close(ring, fd);
    }
}
