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
import java.io.RandomAccessFile;
import java.util.concurrent.TimeUnit;

/** RandomAccessFile seek + read/write into a byte[] (page cache only: it cannot open O_DIRECT). */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RandomAccessFileIo {
    @Param({"4096"})
    public int size;
    @Param({"read"})
    public String op;

    private RandomAccessFile raf;
    private byte[] buf;
    private DataFile.Offsets offsets;
    private boolean write;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        write = op.equals("write");
        DataFile.warmPageCache();
        raf = new RandomAccessFile(DataFile.path().toFile(), "rw");
        buf = new byte[size];
        offsets = new DataFile.Offsets(size, System.nanoTime() ^ Thread.currentThread().threadId());
    }

    @Benchmark
    public int randomIo(CpuCounters cpu) throws IOException {
        cpu.ops++;
        raf.seek(offsets.next());
        if (write) {
            raf.write(buf);
        } else {
            raf.readFully(buf);
        }
        return buf[0];
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        raf.close();
    }
}
