package dev.ringfuse.bench;

import com.sun.nio.file.ExtendedOpenOption;
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
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Positional FileChannel reads/writes into a direct buffer, one blocking call per invocation. Its queue depth is
 * the number of benchmark threads. O_DIRECT through {@link ExtendedOpenOption#DIRECT}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FileChannelIo {
    @Param({"4096"})
    public int size;
    @Param({"false"})
    public boolean direct;
    @Param({"read"})
    public String op;

    private FileChannel ch;
    private ByteBuffer buf;
    private DataFile.Offsets offsets;
    private boolean write;
    private long ops, switchesAtStart;

    static FileChannel open(boolean direct) throws IOException {
        List<OpenOption> opts = new ArrayList<>(List.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
        if (direct) opts.add(ExtendedOpenOption.DIRECT);
        return FileChannel.open(DataFile.path(), opts.toArray(OpenOption[]::new));
    }

    /** A 4096-aligned direct buffer of exactly {@code size} bytes (O_DIRECT needs the alignment). */
    static ByteBuffer alignedBuffer(int size) {
        int rounded = (size + 4095) & ~4095;
        return ByteBuffer.allocateDirect(rounded + 4096).alignedSlice(4096).limit(size).slice();
    }

    @Setup(Level.Trial)
    public void setup() throws IOException {
        write = op.equals("write");
        if (!direct) DataFile.warmPageCache();
        ch = open(direct);
        buf = alignedBuffer(size);
        offsets = new DataFile.Offsets(size, System.nanoTime() ^ Thread.currentThread().threadId());
        switchesAtStart = IoWorkers.contextSwitches();
    }

    @Benchmark
    public int randomIo(CpuCounters cpu) throws IOException {
        cpu.ops++;
        ops++;
        buf.clear();
        int n = write ? ch.write(buf, offsets.next()) : ch.read(buf, offsets.next());
        if (n != size) throw new IllegalStateException("short I/O: " + n);
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (Boolean.getBoolean("bench.report")) {
            System.out.printf("%nFileChannel %s %s: context switches/op %.3f%n", op, direct ? "direct" : "page",
                    (IoWorkers.contextSwitches() - switchesAtStart) / (double) Math.max(1, ops));
        }
        ch.close();
    }
}
