package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.pattern;
import static dev.ringfuse.testkit.internal.Check.s;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.testkit.internal.ErrnoException;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Several threads and several processes at once. */
public interface PosixConcurrencyScenarios extends ScenarioContext {

    private static <T> List<T> inParallel(int n, java.util.function.IntFunction<Callable<T>> task) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(n)) {
            List<Future<T>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) fs.add(pool.submit(task.apply(i)));
            List<T> out = new ArrayList<>();
            for (Future<T> f : fs) out.add(f.get());
            return out;
        }
    }

    /** Threads writing distinct regions of one file through their own descriptors lose no byte. */
    @Test
    default void threadsWritingDistinctRegionsOfOneFile() throws Exception {
        int threads = 8, chunks = 32, chunk = 16_384;
        Path f = dir().resolve("shared");
        try (FileChannel shared = FileChannel.open(f, CREATE, WRITE)) {
            inParallel(threads, t -> () -> {
                try (FileChannel own = FileChannel.open(f, WRITE)) {
                    for (int c = 0; c < chunks; c++) {
                        FileChannel ch = c % 2 == 0 ? shared : own; // one shared descriptor, one per thread
                        long off = (long) (c * threads + t) * chunk;
                        ByteBuffer b = ByteBuffer.wrap(pattern(off, chunk));
                        while (b.hasRemaining()) ch.write(b, off + b.position());
                    }
                }
                return null;
            });
        }
        byte[] all = Files.readAllBytes(f);
        assertEquals((long) threads * chunks * chunk, all.length);
        for (int i = 0; i < threads * chunks; i++) {
            long off = (long) i * chunk;
            assertArrayEquals(pattern(off, chunk), java.util.Arrays.copyOfRange(all, (int) off, (int) off + chunk), "chunk " + i);
        }
    }

    /** Processes writing distinct regions of one file lose no byte. */
    @Test
    default void processesWritingDistinctRegionsOfOneFile() throws Exception {
        int procs = 4, blocks = 64, block = 8192;
        Path f = Files.createFile(dir().resolve("shared"));
        List<Procs.Child> children = new ArrayList<>();
        try {
            for (int p = 0; p < procs; p++) {
                children.add(Procs.start(Procs.pythonCmd("""
                        p, procs, blocks, size = map(int, sys.argv[2:])
                        fd = os.open(sys.argv[1], os.O_WRONLY)
                        for b in range(blocks):
                            n = b * procs + p
                            os.pwrite(fd, bytes(((n * 7 + i) & 0xff) for i in range(size)), n * size)
                        os.fsync(fd)
                        """, s(f), "" + p, "" + procs, "" + blocks, "" + block)));
            }
            for (Procs.Child c : children) {
                Procs.Result r = c.await(Duration.ofSeconds(90));
                assertEquals(0, r.exit(), r.err());
            }
        } finally {
            children.forEach(Procs.Child::close);
        }
        byte[] all = Files.readAllBytes(f);
        assertEquals((long) procs * blocks * block, all.length);
        for (int n = 0; n < procs * blocks; n++) {
            for (int i = 0; i < block; i++) {
                if (all[n * block + i] != (byte) ((n * 7 + i) & 0xff)) throw new AssertionError("block " + n + " byte " + i);
            }
        }
    }

    /** Threads creating files in one directory all succeed, and of threads racing for one name with O_EXCL exactly one wins. */
    @Test
    default void threadsCreatingInOneDirectory() throws Exception {
        int threads = 8, each = 200, racedNames = 100;
        AtomicInteger racedWins = new AtomicInteger();
        inParallel(threads, t -> () -> {
            for (int i = 0; i < each; i++) {
                Files.createFile(dir().resolve("t" + t + "-" + i));
                if (i < racedNames) {
                    try { // every thread races for the same names: O_EXCL lets exactly one win
                        Libc.close(Libc.open(s(dir().resolve("raced-" + i)), Libc.O_CREAT | Libc.O_EXCL | Libc.O_WRONLY, 0644));
                        racedWins.incrementAndGet();
                    } catch (ErrnoException e) {
                        assertEquals(dev.ringfuse.Errno.EEXIST, e.error());
                    }
                }
            }
            return null;
        });
        assertEquals(racedNames, racedWins.get());
        List<String> names = Libc.listDir(s(dir()), 4096);
        assertEquals(threads * each + racedNames, names.size());
        assertEquals(names.size(), new HashSet<>(names).size());
    }

    /** Processes racing to create the same names with O_EXCL: exactly one wins each name. */
    @Test
    default void processesCreatingInOneDirectory() throws Exception {
        int procs = 4, names = 150;
        List<Procs.Child> children = new ArrayList<>();
        int wins = 0;
        try {
            for (int p = 0; p < procs; p++) {
                children.add(Procs.start(Procs.pythonCmd("""
                        d, p, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
                        wins = 0
                        for i in range(n):
                            os.close(os.open(f"{d}/p{p}-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                            try:
                                os.close(os.open(f"{d}/shared-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                                wins += 1
                            except FileExistsError:
                                pass
                        print("wins", wins)
                        """, s(dir()), "" + p, "" + names)));
            }
            for (Procs.Child c : children) {
                Procs.Result r = c.await(Duration.ofSeconds(90));
                assertEquals(0, r.exit(), r.err());
                wins += Integer.parseInt(r.outcomes().get("wins"));
            }
        } finally {
            children.forEach(Procs.Child::close);
        }
        assertEquals(names, wins, "each shared name is created exactly once");
        assertEquals(procs * names + names, Libc.listDir(s(dir()), 4096).size());
    }

    /** While two names are swapped with RENAME_EXCHANGE over and over, both names always exist (RENAME_EXCHANGE). */
    @Test
    default void namesNeverVanishDuringRenameExchange() throws Exception {
        requires(Feature.RENAME_EXCHANGE);
        Path a = Files.writeString(dir().resolve("a"), "A"), b = Files.writeString(dir().resolve("b"), "B");
        AtomicBoolean stop = new AtomicBoolean();
        List<Object> results = new ArrayList<>();
        Thread swapper = Thread.ofPlatform().start(() -> {
            try {
                while (!stop.get()) Libc.renameat2(s(a), s(b), Libc.RENAME_EXCHANGE);
            } catch (ErrnoException e) {
                results.add(e);
            }
        });
        try {
            for (int i = 0; i < 3000; i++) {
                String content = Files.readString(i % 2 == 0 ? a : b);
                if (!content.equals("A") && !content.equals("B")) throw new AssertionError("read " + content);
                Libc.stat(s(i % 2 == 0 ? b : a));
            }
        } finally {
            stop.set(true);
            swapper.join();
        }
        assertEquals(List.of(), results);
    }

    /** fio writes random blocks from two jobs and verifies their checksums (skipped without fio). */
    @Test
    default void fioVerifyJob() throws Exception {
        assumeTrue(Procs.onPath("fio"), "fio is not installed (apt-get install fio)");
        Procs.Result r = Procs.run(Duration.ofSeconds(110), List.of("fio", "--name=verify", "--verify_state_save=0", "--directory=" + dir(),
                "--size=8M", "--bs=4k", "--rw=randwrite", "--ioengine=psync", "--numjobs=2", "--verify=crc32c",
                "--do_verify=1", "--verify_fatal=1", "--fsync_on_close=1", "--group_reporting", "--minimal"));
        assertEquals(0, r.exit(), r.out() + r.err());
    }
}
