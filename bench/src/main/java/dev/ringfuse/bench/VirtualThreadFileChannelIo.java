package dev.ringfuse.bench;

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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * FileChannel on virtual threads: each benchmark thread keeps {@code qd} reads/writes in flight, each on its own
 * virtual thread (the JDK compensates blocking file I/O by growing the carrier pool). One invocation = take one
 * finished operation and start the next; the same steady-state shape as {@link UringIo}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VirtualThreadFileChannelIo {
    @Param({"4096"})
    public int size;
    @Param({"32"})
    public int qd;
    @Param({"false"})
    public boolean direct;
    @Param({"read"})
    public String op;

    private FileChannel ch;
    private ByteBuffer[] bufs;
    private BlockingQueue<Integer> done;
    private ExecutorService vts;
    private DataFile.Offsets offsets;
    private boolean write;
    private volatile Throwable failure;   // an operation failed on its virtual thread: fail the benchmark

    @Setup(Level.Trial)
    public void setup() throws IOException {
        write = op.equals("write");
        if (!direct) DataFile.warmPageCache();
        ch = FileChannelIo.open(direct);
        bufs = new ByteBuffer[qd];
        for (int i = 0; i < qd; i++) bufs[i] = FileChannelIo.alignedBuffer(size);
        done = new ArrayBlockingQueue<>(qd);
        vts = Executors.newVirtualThreadPerTaskExecutor();
        offsets = new DataFile.Offsets(size, System.nanoTime() ^ Thread.currentThread().threadId());
        for (int i = 0; i < qd; i++) start(i);
    }

    private void start(int slot) {
        long off = offsets.next();
        vts.execute(() -> {
            ByteBuffer b = bufs[slot].clear();
            try {
                int n = write ? ch.write(b, off) : ch.read(b, off);
                if (n != size) throw new IllegalStateException("short I/O: " + n);
            } catch (Throwable e) {
                failure = e;
            } finally {
                done.add(slot);
            }
        });
    }

    @Benchmark
    public int randomIo(CpuCounters cpu) throws InterruptedException {
        cpu.ops++;
        int slot = done.take();
        if (failure != null) throw new IllegalStateException("I/O failed on a virtual thread", failure);
        start(slot);
        return slot;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        vts.close();          // waits for the in-flight operations
        ch.close();
    }
}
