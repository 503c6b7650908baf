package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.testkit.internal.Procs;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The first buffered READ of a file arrives while an asynchronous O_DIRECT write to it is at the server and is
 * served before the write is applied (core/DESIGN.md, "Page cache coherence"): it caches the old bytes, and
 * the kernel does not drop them when the async write completes. The session must still invalidate the
 * write's range before its reply: whether the node has cached pages is decided when the reply is given, not
 * when the WRITE arrived (then nothing was marked yet). Before that fix the read-back through a new
 * descriptor returned the old bytes on both transports, every time; in the pool's coherence stress this
 * showed once as an aio rewrite read back as the file's first contents (zeros).
 *
 * <p>The filesystem holds that one WRITE until a READ of the same node has been answered. On io_uring the
 * READ must come from another CPU than the write (each CPU has its own queue, and the write's queue thread is
 * the one held), so the two processes are pinned to CPUs 0 and 1.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DirectWriteFirstReadTest {
    private static final int SIZE = 64 << 10;

    /** memfs, with the first WRITE after {@link #arm} held until a READ of its node was answered (at most 20 s). */
    static final class HeldWriteFs extends DelegatingFs {
        private volatile boolean armed;
        private final AtomicBoolean taken = new AtomicBoolean();
        private volatile long node;
        final CountDownLatch writeArrived = new CountDownLatch(1);
        final CountDownLatch readServed = new CountDownLatch(1);
        volatile boolean readWhileHeld;

        HeldWriteFs() {
            super(new MemFs());
        }

        void arm() {
            armed = true;
        }

        @Override
        public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags,
                          CountReply reply) {
            if (armed && taken.compareAndSet(false, true)) {
                node = nodeid;
                writeArrived.countDown();
                try {
                    readWhileHeld = readServed.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            super.write(ctx, nodeid, fh, offset, data, writeFlags, reply);
        }

        @Override
        public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
            super.read(ctx, nodeid, fh, offset, size, reply);
            if (taken.get() && nodeid == node) readServed.countDown();
        }
    }

    private static FuseMount mount(TransportKind transport) {
        return CoherenceStress.mount(HeldWriteFs::new, transport, 4, Duration.ofSeconds(60));
    }

    @RegisterExtension
    static final FuseMount DEV = mount(TransportKind.DEV);
    @RegisterExtension
    static final FuseMount URING = mount(TransportKind.URING);

    /** argv: MODE PATH CPU. write: one async O_DIRECT write of 'B's (raw libaio syscalls), then a read-back. */
    private static final String SCRIPT = """
            import ctypes, mmap
            mode, path, cpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
            os.sched_setaffinity(0, {cpu})
            SIZE = %d
            if mode == "read":
                fd = os.open(path, os.O_RDONLY)
                got = os.pread(fd, SIZE, 0)
                os.close(fd)
                print("read", len(got), flush=True)
                sys.exit(0)
            libc = ctypes.CDLL(None, use_errno=True)
            ctx = ctypes.c_ulong(0)
            if libc.syscall(206, 4, ctypes.byref(ctx)) != 0:
                sys.exit("io_setup errno %%d" %% ctypes.get_errno())
            buf = mmap.mmap(-1, SIZE)
            buf[:] = b"B" * SIZE
            fd = os.open(path, os.O_WRONLY | os.O_DIRECT)
            iocb = ctypes.create_string_buffer(struct.pack("<QIIHhIQQqQII", 1, 0, 0, 1, 0, fd,
                    ctypes.addressof(ctypes.c_char.from_buffer(buf)), SIZE, 0, 0, 0, 0), 64)
            ptrs = (ctypes.c_void_p * 1)(ctypes.addressof(iocb))
            if libc.syscall(209, ctx, 1, ptrs) != 1:
                sys.exit("io_submit errno %%d" %% ctypes.get_errno())
            print("submitted", flush=True)
            events = ctypes.create_string_buffer(32)
            while libc.syscall(208, ctx, 1, 1, events, None) != 1:
                if ctypes.get_errno() != 4:
                    sys.exit("io_getevents errno %%d" %% ctypes.get_errno())
            res = struct.unpack_from("<QQqq", events, 0)[2]
            if res != SIZE:
                sys.exit("async O_DIRECT write returned %%d" %% res)
            fd2 = os.open(path, os.O_RDONLY)
            got = os.pread(fd2, SIZE, 0)
            stale = [i for i in range(0, SIZE, 4096) if got[i:i + 4096] != b"B" * 4096]
            print("readback", "new" if not stale else "old in pages at %%s: %%r" %% (stale, got[stale[0]:stale[0] + 16]), flush=True)
            """.formatted(SIZE);

    private static void firstReadDuringDirectWrite(FuseMount m) throws Exception {
        Path f = m.testDir().resolve("f");
        byte[] a = new byte[SIZE];
        Arrays.fill(a, (byte) 'A');
        Files.write(f, a); // write-through: its pages are cached, and no READ of the node has arrived
        HeldWriteFs fs = (HeldWriteFs) m.fileSystem();
        fs.arm();
        try (Procs.Child writer = Procs.start(Procs.pythonCmd(SCRIPT, "write", f.toString(), "0"))) {
            assertTrue(fs.writeArrived.await(60, TimeUnit.SECONDS), "the direct write never reached the filesystem: "
                    + writer.stdout());
            // the kernel dropped the range's pages before sending the WRITE: this read asks the server
            Procs.Result r = Procs.run(Duration.ofSeconds(60), Procs.pythonCmd(SCRIPT, "read", f.toString(), "1"));
            assertEquals(0, r.exit(), r.out() + r.err());
            Procs.Result w = writer.await(Duration.ofSeconds(60));
            assertTrue(fs.readWhileHeld, "no READ was served while the write was held: the test proved nothing");
            assertEquals(0, w.exit(), w.out() + w.err());
            assertTrue(w.out().contains("readback new"), "a buffered read after the completed direct write: " + w.out());
        }
    }

    @Test
    void dev() throws Exception {
        firstReadDuringDirectWrite(DEV);
    }

    @Test
    void uring() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two CPUs (one io_uring queue each)");
        firstReadDuringDirectWrite(URING);
    }
}
