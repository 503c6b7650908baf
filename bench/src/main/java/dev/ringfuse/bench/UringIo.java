package dev.ringfuse.bench;

import dev.ringfuse.uring.CompletionHandler;
import dev.ringfuse.uring.IoUring;
import dev.ringfuse.uring.OpenFlags;
import dev.ringfuse.uring.RegisteredBuffers;
import dev.ringfuse.uring.RegisteredFiles;
import dev.ringfuse.uring.RingConfig;
import dev.ringfuse.uring.Sqe;
import dev.ringfuse.uring.UringException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * io_uring random reads/writes with {@code qd} operations kept in flight per ring (one ring per benchmark thread).
 * One invocation = one completed operation: it takes a reaped completion (waiting for the ring only when none is
 * left) and re-arms that slot at a new random offset; re-armed SQEs go to the kernel in one batch with the next
 * wait. The file is registered (no fget/fput per operation). With O_DIRECT the buffers are registered too
 * (READ_FIXED/WRITE_FIXED: no page pinning per operation); in the page cache plain READ/WRITE is used, because the
 * kernel copies into registered buffers with {@code memcpy} (memcpy_orig on CPUs without FSRM, as here), which is
 * slower than the {@code copy_to_user} path of a plain read.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UringIo {
    private static final int IOSQE_FIXED_FILE = 1, IOSQE_ASYNC = 16;
    @Param({"4096"})
    public int size;
    @Param({"32"})
    public int qd;
    @Param({"false"})
    public boolean direct;
    @Param({"read"})
    public String op;
    /**
     * Completions to wait for when none is reaped (liburing's wait_nr, fio's iodepth_batch_complete_min): 0 = a
     * quarter of {@code qd}. Waiting for one wakes the thread per completion; for O_DIRECT and for writes that
     * the kernel hands to io-wq workers every wake-up is a context switch, so a batch amortises it.
     */
    @Param({"0"})
    public int batch;
    /**
     * IOSQE_ASYNC on page-cache writes: "off" (the default) never sets it, "on" always, "auto" where a probe at
     * setup sees the file system punt buffered writes to io-wq (ext4, tmpfs). Off by default since session 6: with
     * the flag the writes are punted before the file is looked up, io-wq sees unbound work and starts a worker per
     * write (16 per ring), all queueing on the inode lock; without it the refused attempt is punted hashed to the
     * inode and runs on one worker per ring. Process CPU per 4 KiB write, two alternated rounds: 3.52 and 3.39 µs
     * with the flag, 2.30 and 2.58 µs without (docs/bench/uring.md).
     */
    @Param({"off"})
    public String async;

    private IoUring ring;
    private Arena arena;
    private RegisteredBuffers buffers;
    private RegisteredFiles files;
    private MemorySegment[] slotBuf;
    private int[] ready;          // slots whose completion was reaped and not yet re-armed
    private int readyCount;
    private DataFile.Offsets offsets;
    private boolean write;
    private CompletionHandler handler;
    private int waitFor;
    private long ops, switchesAtStart;
    private boolean punted;
    private int sqeFlags;

    @Setup(Level.Trial)
    public void setup() throws UringException {
        write = op.equals("write");
        if (!direct) DataFile.warmPageCache();
        ring = IoUring.open(RingConfig.builder(Math.max(qd, 2)).cqEntries(Math.max(qd, 2) * 2)
                .singleIssuer().deferTaskrun().coopTaskrun().build());
        arena = Arena.ofShared();
        int flags = OpenFlags.O_RDWR | (direct ? OpenFlags.O_DIRECT : 0);
        ring.nextSqe().prepOpenat(IoUring.AT_FDCWD, arena.allocateFrom(DataFile.path().toString()), flags, 0)
                .userData(-1);
        ring.submitAndWait(1);
        int[] fd = {-1};
        while (ring.reap((ud, res, fl) -> fd[0] = res) == 0) ring.submitAndWait(1); // a signal ended the wait
        if (fd[0] < 0) throw UringException.fromResult("OPENAT", fd[0]);
        files = ring.registerFiles(fd[0]);
        slotBuf = new MemorySegment[qd];
        for (int i = 0; i < qd; i++) {
            slotBuf[i] = arena.allocate(size, 4096);
            slotBuf[i].fill((byte) i);
        }
        if (direct) buffers = ring.registerBuffers(slotBuf);
        offsets = new DataFile.Offsets(size, System.nanoTime() ^ Thread.currentThread().threadId());
        waitFor = batch > 0 ? Math.min(batch, qd) : Math.max(1, qd / 4);
        boolean punt = switch (async) {
            case "on" -> true;
            case "off" -> false;
            default -> write && !direct && puntsWrites();
        };
        sqeFlags = IOSQE_FIXED_FILE | (punt ? IOSQE_ASYNC : 0);
        ready = new int[qd];
        handler = (ud, res, fl) -> {
            if (res != size) throw new IllegalStateException("short or failed I/O: " + res);
            ready[readyCount++] = (int) ud;
        };
        for (int i = 0; i < qd; i++) arm(i);
        ring.submit();
        punted = sqeFlags != IOSQE_FIXED_FILE;
        switchesAtStart = IoWorkers.contextSwitches();
    }

    /**
     * Whether the kernel hands this file's buffered writes to io-wq workers (ext4 on 6.18: its file operations
     * lack FOP_BUFFER_WASYNC, XFS has it): a few writes are submitted without IOSQE_ASYNC, and a worker thread
     * named {@code iou-wrk-<our tid>} appearing says they were punted.
     */
    private boolean puntsWrites() throws UringException {
        for (int i = 0; i < Math.min(qd, 4); i++) {
            ring.nextSqe().prepWrite(0, slotBuf[i], offsets.next()).fixedFile().userData(i);
        }
        ring.submitAndWait(Math.min(qd, 4));
        ring.reap((ud, res, fl) -> { });
        return IoWorkers.count() > 0;
    }

    private void arm(int slot) throws UringException {
        Sqe sqe = ring.nextSqe();
        long off = offsets.next();
        if (buffers != null) {
            if (write) sqe.prepWriteFixed(0, slotBuf[slot], off, slot);
            else sqe.prepReadFixed(0, slotBuf[slot], off, slot);
        } else {
            if (write) sqe.prepWrite(0, slotBuf[slot], off);
            else sqe.prepRead(0, slotBuf[slot], off);
        }
        sqe.flags(sqeFlags).userData(slot);
    }

    @Benchmark
    public int randomIo(CpuCounters cpu) throws UringException {
        cpu.ops++;
        ops++;
        if (readyCount == 0) {
            ring.submitAndWait(waitFor);      // sends the re-armed SQEs and waits for a batch of completions
            ring.reap(handler);
        }
        int slot = ready[--readyCount];
        arm(slot);
        return slot;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws UringException {
        if (Boolean.getBoolean("bench.report")) {
            // what the kernel did for this thread: io-wq workers alive, and how often the thread slept (per op)
            System.out.printf("%nuring %s %s qd %d batch %d IOSQE_ASYNC %s: io-wq workers %d, context switches/op %.3f%n",
                    op, direct ? "direct" : "page", qd, waitFor, punted, IoWorkers.count(),
                    (IoWorkers.contextSwitches() - switchesAtStart) / (double) Math.max(1, ops));
        }
        // drain what is in flight so the buffers are not freed under the kernel
        int inFlight = qd - readyCount;
        int[] n = {0};
        while (n[0] < inFlight) {
            ring.submitAndWait(1);
            n[0] += ring.reap((ud, res, fl) -> { });
        }
        int fd = files.fd(0);
        if (buffers != null) buffers.close();
        files.close();
        ring.nextSqe().prepClose(fd).userData(-2);
        ring.submitAndWait(1);
        ring.close();
        arena.close();
    }
}
